package mysql

import (
	gm "github.com/go-mysql-org/go-mysql/mysql"
)

// relayedCaps are the capability flags the listener lets client and
// upstream agree on. It relays packets raw after login, so it keeps only
// the flags whose packet formats it reads (no compression, no query
// attributes, no optional result-set metadata, no MariaDB extended
// capabilities).
const relayedCaps = gm.CLIENT_LONG_PASSWORD | gm.CLIENT_FOUND_ROWS | gm.CLIENT_LONG_FLAG |
	gm.CLIENT_CONNECT_WITH_DB | gm.CLIENT_NO_SCHEMA | gm.CLIENT_ODBC | gm.CLIENT_LOCAL_FILES |
	gm.CLIENT_IGNORE_SPACE | gm.CLIENT_PROTOCOL_41 | gm.CLIENT_INTERACTIVE | gm.CLIENT_IGNORE_SIGPIPE |
	gm.CLIENT_TRANSACTIONS | gm.CLIENT_RESERVED | gm.CLIENT_SECURE_CONNECTION | gm.CLIENT_MULTI_STATEMENTS |
	gm.CLIENT_MULTI_RESULTS | gm.CLIENT_PS_MULTI_RESULTS | gm.CLIENT_PLUGIN_AUTH | gm.CLIENT_CONNECT_ATTRS |
	gm.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | gm.CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS |
	gm.CLIENT_SESSION_TRACK | gm.CLIENT_DEPRECATE_EOF
