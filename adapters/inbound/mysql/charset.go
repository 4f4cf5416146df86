package mysql

// The analyzer reads a text as the server does only while the client
// character set keeps every ASCII byte a character. In big5, cp932, gbk,
// gb18030 and sjis a character may end in a backslash or backtick byte
// (analyzer.Mode.MultiByte), so a session that may be in one of those is
// analysed strictly: texts with a byte 0x81–0xFE before a backslash or a
// backtick are unreadable (held by a rule naming UNKNOWN, else refused).

// asciiSafeCollation reports whether the handshake's collation id names a
// character set whose multi-byte characters never hold an ASCII byte:
// latin1, ascii, binary, utf8mb3, utf8mb4 (MySQL and MariaDB share these
// ids). Any other id, or one this list lacks, counts as multi-byte.
func asciiSafeCollation(id byte) bool {
	switch {
	case id == 5, id == 8, id == 15, id == 31, id == 47, id == 48, id == 49, id == 94, // latin1
		id == 11, id == 65, // ascii
		id == 63,                                              // binary
		id == 33, id == 83, id >= 192 && id <= 215, id == 223, // utf8mb3
		id == 45, id == 46, id >= 224 && id <= 247, id == 255: // utf8mb4
		return true
	}
	return false
}

// mayChangeCharset reports whether a text the upstream is about to run may
// change the client character set: it names NAMES, CHARSET or CHARACTER
// (SET NAMES, SET CHARACTER SET, character_set_client) anywhere, even in a
// string (a PREPARE text), or calls a procedure. The check is by words, not
// by the analysis: a session stays strict once it may be multi-byte.
func mayChangeCharset(sql string) bool {
	return containsWord(sql, "names") || containsWord(sql, "charset") ||
		containsWord(sql, "character") || containsWord(sql, "call")
}

// containsWord reports whether sql holds word (lower-case ASCII) in any mix
// of ASCII case, without the copy strings.ToLower makes of every text.
func containsWord(sql, word string) bool {
	for i := 0; i+len(word) <= len(sql); i++ {
		j := 0
		for j < len(word) && lowerASCII(sql[i+j]) == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
