// Runs statements through one SQL Server connection made with the Node
// `mssql` package (client "mssql") or with `tedious` directly (client
// "tedious"), and prints one JSON line per statement: {ok, affected, rows}
// or {ok: false, number, state, class, message}.
//
// Usage: node run.mjs '<config JSON>' '<statements JSON>', where config is
// {client, host, port, user, password, database, appName, encrypt,
// ntlmDomain, caFile} (ntlmDomain: tedious logs in with Windows NTLM;
// encrypt: false | true | "strict", as both packages take it; caFile: the
// server's certificate is verified against it, else any is trusted —
// strict always verifies) and each
// statement is {sql, params?, prepare?}: without params the text goes as a
// SQLBatch; with params ({name: integer or string}) as sp_executesql; with
// prepare: true (client "mssql") as sp_prepare + sp_execute +
// sp_unprepare. A failed connect prints {ok: false, connect: true, …}.
import mssql from "mssql";
import tedious from "tedious";
import { readFileSync } from "node:fs";

// tedious 20 declares Node >= 22 and calls Promise.withResolvers (Node 22);
// Debian's Node 20 lacks only that, so it is supplied here.
Promise.withResolvers ??= function () {
  let resolve, reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
};

const cfg = JSON.parse(process.argv[2]);
const statements = JSON.parse(process.argv[3]);
const tlsOptions = cfg.caFile
  ? { trustServerCertificate: false, cryptoCredentialsDetails: { ca: readFileSync(cfg.caFile) } }
  : { trustServerCertificate: true };
const out = (o) => console.log(JSON.stringify(o));
const fail = (e, extra = {}) => {
  const err = e.originalError?.info ?? e.info ?? e.originalError ?? e;
  out({ ok: false, number: err.number ?? e.number, state: err.state ?? e.state, class: err.class ?? e.class,
        message: err.message ?? e.message, code: e.code, ...extra });
};
const typeOf = (v, lib) => (typeof v === "number" ? lib.Int : lib.NVarChar);

if (cfg.client === "tedious") {
  await runTedious();
} else {
  await runMssql();
}

async function runMssql() {
  let pool;
  try {
    pool = await new mssql.ConnectionPool({
      server: cfg.host, port: cfg.port, user: cfg.user, password: cfg.password, database: cfg.database,
      pool: { max: 1, min: 1 }, connectionTimeout: 15000, requestTimeout: 30000,
      options: { encrypt: cfg.encrypt, ...tlsOptions, appName: cfg.appName ?? "node-mssql" },
    }).connect();
  } catch (e) {
    fail(e, { connect: true });
    return;
  }
  for (const st of statements) {
    try {
      let res;
      if (st.prepare) {
        const ps = new mssql.PreparedStatement(pool);
        for (const [k, v] of Object.entries(st.params ?? {})) ps.input(k, typeOf(v, mssql));
        await ps.prepare(st.sql);
        try {
          res = await ps.execute(st.params ?? {});
        } finally {
          await ps.unprepare();
        }
      } else if (st.params) {
        const req = pool.request();
        for (const [k, v] of Object.entries(st.params)) req.input(k, typeOf(v, mssql), v);
        res = await req.query(st.sql);
      } else {
        res = await pool.request().batch(st.sql);
      }
      out({ ok: true, affected: res.rowsAffected?.reduce((a, b) => a + b, 0) ?? 0, rows: res.recordset ?? [] });
    } catch (e) {
      fail(e);
    }
  }
  await pool.close();
}

async function runTedious() {
  const { Connection, Request, TYPES } = tedious;
  const conn = new Connection({
    server: cfg.host,
    authentication: cfg.ntlmDomain
      ? { type: "ntlm", options: { domain: cfg.ntlmDomain, userName: cfg.user, password: cfg.password } }
      : { type: "default", options: { userName: cfg.user, password: cfg.password } },
    options: { port: cfg.port, database: cfg.database, encrypt: cfg.encrypt, ...tlsOptions,
               appName: cfg.appName ?? "tedious", connectTimeout: 15000, requestTimeout: 30000 },
  });
  const ok = await new Promise((resolve) => {
    conn.on("connect", (err) => {
      if (err) {
        fail(err, { connect: true });
        resolve(false);
      } else resolve(true);
    });
    conn.connect();
  });
  if (!ok) return;
  for (const st of statements) {
    await new Promise((resolve) => {
      const rows = [];
      let lastErr;
      const req = new Request(st.sql, (err, rowCount) => {
        if (err) fail(lastErr ?? err);
        else out({ ok: true, affected: rowCount ?? 0, rows });
        resolve();
      });
      req.on("row", (cols) => rows.push(Object.fromEntries(cols.map((c) => [c.metadata.colName, c.value]))));
      conn.on("errorMessage", (m) => { lastErr = { info: m, message: m.message }; });
      if (st.params) {
        for (const [k, v] of Object.entries(st.params)) req.addParameter(k, typeOf(v, TYPES), v);
        conn.execSql(req);
      } else {
        conn.execSqlBatch(req);
      }
    });
    conn.removeAllListeners("errorMessage");
  }
  await new Promise((resolve) => { conn.on("end", resolve); conn.close(); });
}
