// Runs statements through one mysql2 connection and prints one JSON line
// per statement: {ok, affected, rows} or {ok: false, errno, sqlState,
// message}. Usage: node run.mjs '<config JSON>' '<statements JSON>', where
// config is {host, port, user, password, database, programName} and each
// statement is {sql, params?}: with params it is sent with execute()
// (COM_STMT_PREPARE/EXECUTE), without with query() (COM_QUERY); a
// statement {changeUser: {user, password, database}} sends COM_CHANGE_USER.
import mysql from "mysql2/promise";

const cfg = JSON.parse(process.argv[2]);
const statements = JSON.parse(process.argv[3]);
const conn = await mysql.createConnection({
  host: cfg.host, port: cfg.port, user: cfg.user, password: cfg.password, database: cfg.database,
  connectAttributes: cfg.programName ? { program_name: cfg.programName } : undefined,
});
for (const st of statements) {
  try {
    if (st.changeUser) {
      await conn.changeUser(st.changeUser);
      console.log(JSON.stringify({ ok: true }));
      continue;
    }
    const [res] = st.params ? await conn.execute(st.sql, st.params) : await conn.query(st.sql);
    const out = Array.isArray(res) ? { ok: true, rows: res } : { ok: true, affected: res.affectedRows };
    console.log(JSON.stringify(out));
  } catch (e) {
    console.log(JSON.stringify({ ok: false, errno: e.errno, sqlState: e.sqlState, message: e.sqlMessage ?? e.message }));
  }
}
await conn.end();
