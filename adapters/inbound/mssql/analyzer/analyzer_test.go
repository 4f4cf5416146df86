package analyzer

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

type want struct {
	actions []string // exact, sorted
	targets []string // each must be present
	notTgt  []string // each must be absent
	funcs   []string // each must be present
}

func TestAnalyzeStatements(t *testing.T) {
	cases := []struct {
		sql  string
		want want
	}{
		// DML and targets: bare, schema.name (dbo by default), db.schema.name.
		{"SELECT * FROM users WHERE id = 1", want{actions: []string{"SELECT"}, targets: []string{"users", "dbo.users", "prod.dbo.users"}}},
		{"select a.x, b.* from [My DB].Sales.[Order Items] a join b on a.id=b.id", want{actions: []string{"SELECT"},
			targets: []string{"order items", "sales.order items", "my db.sales.order items", "b", "dbo.b", "prod.dbo.b"}, notTgt: []string{"a"}}},
		{"SELECT * FROM other..t", want{actions: []string{"SELECT"}, targets: []string{"t", "dbo.t", "other.dbo.t"}, notTgt: []string{"prod.dbo.t"}}},
		{"SELECT * FROM srv.db1.s.t", want{actions: []string{"SELECT"}, targets: []string{"t", "s.t", "db1.s.t", "srv.db1.s.t"}}},
		{`SELECT * FROM "quoted name"`, want{actions: []string{"SELECT"}, targets: []string{"quoted name", "dbo.quoted name"}}},
		{"SELECT * FROM [a]]b]", want{actions: []string{"SELECT"}, targets: []string{"a]b"}}},
		{`DELETE FROM [dbo ].[users  ]`, want{actions: []string{"DELETE"}, targets: []string{"users", "dbo.users", "prod.dbo.users"}}},
		{`DELETE FROM "users "`, want{actions: []string{"DELETE"}, targets: []string{"users", "dbo.users"}}},
		{"INSERT INTO dbo.t (a) VALUES (N'it''s')", want{actions: []string{"INSERT"}, targets: []string{"prod.dbo.t"}}},
		{"INSERT INTO archive SELECT * FROM users", want{actions: []string{"INSERT", "SELECT"}, targets: []string{"archive", "users"}}},
		{"INSERT INTO t EXEC dbo.p", want{actions: []string{"EXEC", "INSERT"}, targets: []string{"t", "dbo.p"}}},
		{"UPDATE u SET u.x = o.y FROM users u JOIN other o ON o.id = u.id", want{actions: []string{"UPDATE"}, targets: []string{"users", "other"}}},
		{"DELETE TOP (10) FROM logs WHERE id < 5", want{actions: []string{"DELETE"}, targets: []string{"prod.dbo.logs"}}},
		{"DELETE FROM @t", want{actions: []string{"DELETE"}, notTgt: []string{"@t"}}},
		{"MERGE t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET x = 1 WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id) WHEN NOT MATCHED BY SOURCE THEN DELETE;",
			want{actions: []string{"DELETE", "INSERT", "MERGE", "UPDATE"}, targets: []string{"t", "s"}}},
		{"SELECT * INTO newt FROM old", want{actions: []string{"CREATE", "CREATE_TABLE", "SELECT", "SELECT_INTO"}, targets: []string{"newt", "old"}}},
		{"SELECT * INTO #tmp FROM old", want{actions: []string{"CREATE", "CREATE_TABLE", "SELECT", "SELECT_INTO"}, targets: []string{"#tmp"}, notTgt: []string{"dbo.#tmp"}}},
		{"WITH c AS (SELECT id FROM t) DELETE FROM c", want{actions: []string{"DELETE", "SELECT"}, targets: []string{"t", "c"}}},
		{"SELECT dbo.f(1), GETDATE()", want{actions: []string{"SELECT"}, funcs: []string{"f", "dbo.f"}}},
		{"TRUNCATE TABLE dbo.logs", want{actions: []string{"TRUNCATE"}, targets: []string{"prod.dbo.logs"}}},
		// DDL.
		{"DROP TABLE IF EXISTS dbo.a, b", want{actions: []string{"DROP", "DROP_TABLE"}, targets: []string{"a", "b", "prod.dbo.b"}}},
		{"DROP VIEW v", want{actions: []string{"DROP", "DROP_VIEW"}, targets: []string{"v", "dbo.v"}}},
		{"DROP PROCEDURE dbo.p", want{actions: []string{"DROP", "DROP_PROCEDURE"}, targets: []string{"p", "prod.dbo.p"}}},
		{"DROP DATABASE Foo", want{actions: []string{"DROP", "DROP_DATABASE"}, targets: []string{"foo", "foo.*"}}},
		{"DROP INDEX ix ON dbo.t", want{actions: []string{"DROP", "DROP_INDEX"}, targets: []string{"t"}}},
		{"DROP INDEX t.ix", want{actions: []string{"DROP", "DROP_INDEX"}, targets: []string{"t", "dbo.t"}}},
		{"DROP SCHEMA s", want{actions: []string{"DROP", "DROP_SCHEMA"}, targets: []string{"s", "prod.s"}}},
		{"DROP USER bob", want{actions: []string{"DROP", "DROP_USER"}, targets: []string{"bob"}}},
		{"DROP LOGIN bob", want{actions: []string{"DROP", "DROP_LOGIN"}, targets: []string{"bob"}}},
		{"CREATE TABLE t (id int)", want{actions: []string{"CREATE", "CREATE_TABLE"}, targets: []string{"prod.dbo.t"}}},
		{"ALTER TABLE t ADD c int", want{actions: []string{"ALTER", "ALTER_TABLE"}, targets: []string{"t"}}},
		{"CREATE INDEX ix ON t (a)", want{actions: []string{"CREATE", "CREATE_INDEX"}, targets: []string{"t"}}},
		{"CREATE OR ALTER PROCEDURE p AS DELETE FROM t", want{actions: []string{"ALTER", "ALTER_PROCEDURE", "CREATE", "CREATE_PROCEDURE"},
			targets: []string{"p"}, notTgt: []string{"t"}}},
		{"ALTER PROCEDURE p AS SELECT 1", want{actions: []string{"ALTER", "ALTER_PROCEDURE"}, targets: []string{"p"}}},
		{"CREATE VIEW v AS SELECT * FROM t", want{actions: []string{"CREATE", "CREATE_VIEW", "SELECT"}, targets: []string{"v", "t"}}},
		{"ALTER VIEW v AS SELECT 1 x", want{actions: []string{"ALTER", "ALTER_VIEW", "SELECT"}, targets: []string{"v"}}},
		{"CREATE LOGIN bob WITH PASSWORD = 'x'", want{actions: []string{"CREATE", "CREATE_LOGIN"}, targets: []string{"bob"}}},
		{"ALTER DATABASE d SET SINGLE_USER", want{actions: []string{"ALTER", "ALTER_DATABASE"}, targets: []string{"d"}}},
		// Security, server, session.
		{"GRANT SELECT ON dbo.t TO bob", want{actions: []string{"GRANT"}, targets: []string{"t"}}},
		{"EXECUTE AS USER = 'dbo'", want{actions: []string{"EXECUTE_AS"}}},
		{"REVERT", want{actions: []string{"REVERT"}}},
		{"DBCC CHECKDB", want{actions: []string{"DBCC", "DBCC_CHECKDB"}}},
		{"SHUTDOWN WITH NOWAIT", want{actions: []string{"SHUTDOWN"}}},
		{"KILL 53", want{actions: []string{"KILL"}}},
		{"BACKUP DATABASE d TO DISK = 'x'", want{actions: []string{"BACKUP", "BACKUP_DATABASE"}}},
		{"SET NOCOUNT ON", want{actions: []string{"SET"}}},
		{"DECLARE @x int = 1", want{actions: []string{"DECLARE"}}},
		{"WAITFOR DELAY '00:00:10'", want{actions: []string{"WAITFOR"}}},
		{"PRINT 'x'", want{actions: []string{"PRINT"}}},
		// Procedures.
		{"EXEC sp_who", want{actions: []string{"EXEC"}, targets: []string{"sp_who", "dbo.sp_who", "prod.dbo.sp_who"}}},
		{"sp_who", want{actions: []string{"EXEC"}, targets: []string{"sp_who"}}},
		{"EXEC [prod].dbo.[my proc] 1, @b = 'x'", want{actions: []string{"EXEC"}, targets: []string{"my proc", "prod.dbo.my proc"}}},
		{"EXEC @rc = dbo.p", want{actions: []string{"EXEC"}, targets: []string{"p"}}},
		// OPENROWSET's pass-through query runs as written: its statements count.
		{"SELECT * FROM OPENROWSET('SQLNCLI', 'Server=(local);Trusted_Connection=yes;', 'SET FMTONLY OFF; DELETE FROM t; SELECT 1')",
			want{actions: []string{"DELETE", "SELECT", "SET"}}},
		{"SELECT * FROM OPENROWSET(BULK 'c:\\x.txt', SINGLE_CLOB) AS f", want{actions: []string{"SELECT"}}},
		// A synonym of a procedure that runs a text hides it from later EXECs.
		{"CREATE SYNONYM s FOR master.sys.sp_executesql", want{actions: []string{"CREATE", "CREATE_SYNONYM", "UNKNOWN"}}},
		{"CREATE SYNONYM dbo.s FOR [xp_cmdshell]", want{actions: []string{"CREATE", "CREATE_SYNONYM", "UNKNOWN"}}},
		{"CREATE PROCEDURE dbo.sp_executesql @s nvarchar(max) AS DROP TABLE t", want{actions: []string{"CREATE", "CREATE_PROCEDURE", "UNKNOWN"}}},
		{"CREATE SYNONYM s FOR other.dbo.orders", want{actions: []string{"CREATE", "CREATE_SYNONYM"}}},
		{"EXEC master..xp_cmdshell 'dir'", want{actions: []string{"EXEC", "UNKNOWN"}, targets: []string{"xp_cmdshell", "master.dbo.xp_cmdshell"}}},
		// Procedures that run a text they are given: analysed when a literal, else UNKNOWN.
		{"EXEC sp_sqlexec 'DROP TABLE t'", want{actions: []string{"DROP", "DROP_TABLE"}, targets: []string{"prod.dbo.t"}}},
		{"EXEC sp_sqlexec @s", want{actions: []string{"UNKNOWN"}}},
		{"EXEC sp_MSforeachtable 'DELETE FROM ?'", want{actions: []string{"EXEC", "UNKNOWN"}, targets: []string{"sp_msforeachtable"}}},
		{"EXEC sys.sp_MSforeachdb @command1 = 'DROP TABLE ?..t'", want{actions: []string{"EXEC", "UNKNOWN"}}},
		{"EXEC sp_execute_external_script @language = N'Python', @script = N'x'", want{actions: []string{"EXEC", "UNKNOWN"}}},
		{"EXEC msdb.dbo.sp_send_dbmail @recipients = 'a@b.c', @query = N'DELETE FROM prod.dbo.t'", want{actions: []string{"EXEC", "UNKNOWN"}}},
		{"EXEC msdb..sp_add_jobstep @job_name = 'j', @step_name = 's', @command = N'DROP TABLE t'", want{actions: []string{"EXEC", "UNKNOWN"}}},
		{"EXEC msdb.dbo.sp_update_jobstep @job_name = 'j', @step_id = 1, @command = N'DROP TABLE t'", want{actions: []string{"EXEC", "UNKNOWN"}}},
		{"EXEC sp_OAMethod @o, 'Run', NULL, 'cmd /c del x'", want{actions: []string{"EXEC", "UNKNOWN"}}},
		{"EXEC @name", want{actions: []string{"EXEC", domain.ActionUnknown}}},
		// A '…' literal run as SQL is converted to the code page first: outside ASCII it may read otherwise.
		{"EXEC ('SELECT ''x\u02bc; DELETE FROM t --''')", want{actions: []string{domain.ActionUnknown}}},
		{"EXEC (N'SELECT ''x\u02bc'' AS a')", want{actions: []string{"SELECT"}}},
		{"SELECT * FROM OPENROWSET('SQLNCLI', 'Server=(local);', 'SELECT ''\uff07; DELETE FROM t --''')", want{actions: []string{"SELECT", domain.ActionUnknown}}},
		{"EXEC sp_execute 1, 2", want{actions: []string{"EXEC", domain.ActionUnknown}}},
		// Dynamic SQL.
		{"EXEC ('DROP TABLE a')", want{actions: []string{"DROP", "DROP_TABLE"}, targets: []string{"a"}}},
		{"EXEC('DROP TABLE a' + N'; DELETE FROM b')", want{actions: []string{"DELETE", "DROP", "DROP_TABLE"}, targets: []string{"a", "b"}}},
		{"EXECUTE (N'SELECT ''x''')", want{actions: []string{"SELECT"}}},
		{"EXEC ('EXEC (''TRUNCATE TABLE t'')')", want{actions: []string{"TRUNCATE"}, targets: []string{"t"}}},
		{"EXEC (@sql)", want{actions: []string{domain.ActionUnknown}}},
		{"EXEC ('DELETE FROM ' + @t)", want{actions: []string{domain.ActionUnknown}}},
		{"EXEC sp_executesql N'DELETE FROM t WHERE id=@p1', N'@p1 int', @p1=1", want{actions: []string{"DELETE"}, targets: []string{"prod.dbo.t"}, notTgt: []string{"sp_executesql"}}},
		{"EXEC sp_executesql @stmt = N'UPDATE t SET a = 1'", want{actions: []string{"UPDATE"}, targets: []string{"t"}}},
		{"sp_executesql N'SELECT 1'", want{actions: []string{"SELECT"}}},
		{"EXEC sp_executesql @sql", want{actions: []string{domain.ActionUnknown}}},
		{"EXEC sp_executesql N'DROP TABLE'", want{actions: []string{"DROP", "DROP_TABLE", domain.ActionUnknown}}},
		{"DECLARE @h int; EXEC sp_prepexec @h OUTPUT, N'@p int', N'DELETE FROM t WHERE id = @p', 1", want{}}, // per statement below
		// Control of flow carries what is inside.
		{"IF 1=1 BEGIN DELETE FROM t END ELSE DROP TABLE u", want{actions: []string{"DELETE", "DROP", "DROP_TABLE"}, targets: []string{"t", "u"}}},
		{"BEGIN TRY UPDATE t SET a = 1 END TRY BEGIN CATCH SELECT ERROR_MESSAGE() END CATCH", want{actions: []string{"SELECT", "UPDATE"}}},
		{"WHILE 1=0 DELETE FROM t", want{actions: []string{"DELETE"}}},
		// Comments, strings, names.
		{"/* a /* nested */ still comment DROP TABLE x */ SELECT 1", want{actions: []string{"SELECT"}, notTgt: []string{"x"}}},
		{"SELECT 1 -- DROP TABLE x", want{actions: []string{"SELECT"}}},
		{"SELECT 'DROP TABLE x; '' DELETE FROM y' AS s", want{actions: []string{"SELECT"}, notTgt: []string{"x", "y"}}},
		{"SELECT N'--', '/*' FROM [t -- x]", want{actions: []string{"SELECT"}, targets: []string{"t -- x"}}},
		{"SELECT 1 AS [a b], 2 AS [c]]d] FROM [db x].[s y].[t z]", want{actions: []string{"SELECT"}, targets: []string{"db x.s y.t z"}}},
		{"SeLeCt * FrOm DBO.Users", want{actions: []string{"SELECT"}, targets: []string{"users", "dbo.users", "prod.dbo.users"}}},
	}
	for _, c := range cases {
		r := Analyze(c.sql, "Prod")
		if r.Err != nil {
			t.Errorf("%q: error %v", c.sql, r.Err)
			continue
		}
		if c.want.actions == nil && c.want.targets == nil {
			continue
		}
		var a, tg, fn []string
		for _, st := range r.Statements {
			a = append(a, st.Analysis.Actions...)
			tg = append(tg, st.Analysis.Targets...)
			fn = append(fn, st.Analysis.Functions...)
		}
		slices.Sort(a)
		a = slices.Compact(a)
		if !slices.Equal(a, c.want.actions) {
			t.Errorf("%q: actions %v, want %v", c.sql, a, c.want.actions)
		}
		for _, x := range c.want.targets {
			if !slices.Contains(tg, x) {
				t.Errorf("%q: targets %v lack %q", c.sql, tg, x)
			}
		}
		for _, x := range c.want.notTgt {
			if slices.Contains(tg, x) {
				t.Errorf("%q: targets %v hold %q", c.sql, tg, x)
			}
		}
		for _, x := range c.want.funcs {
			if !slices.Contains(fn, x) {
				t.Errorf("%q: functions %v lack %q", c.sql, fn, x)
			}
		}
		for _, x := range a {
			if !IsAction(x) {
				t.Errorf("%q: action %q not in the vocabulary", c.sql, x)
			}
		}
	}
}

func TestBatch(t *testing.T) {
	r := Analyze("USE Other; DELETE FROM t\nGO\nSELECT 1;;\nBEGIN TRAN\nUPDATE x SET a = 1\nCOMMIT TRANSACTION\nSET XACT_ABORT ON\nSET XACT_ABORT OFF", "prod")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	var texts []string
	for _, st := range r.Statements {
		texts = append(texts, st.Text)
	}
	wantTexts := []string{"USE Other", "DELETE FROM t", "SELECT 1", "BEGIN TRAN", "UPDATE x SET a = 1", "COMMIT TRANSACTION", "SET XACT_ABORT ON", "SET XACT_ABORT OFF"}
	if !slices.Equal(texts, wantTexts) {
		t.Fatalf("texts %q, want %q", texts, wantTexts)
	}
	st := r.Statements
	if st[0].UseDB != "other" || !slices.Contains(st[1].Analysis.Targets, "other.dbo.t") || slices.Contains(st[1].Analysis.Targets, "prod.dbo.t") {
		t.Errorf("USE: %+v, then %+v", st[0], st[1].Analysis)
	}
	if !slices.Contains(st[4].Analysis.Targets, "other.dbo.x") {
		t.Errorf("USE lasts across GO: %+v", st[4].Analysis)
	}
	if st[3].Transaction != "BEGIN" || st[5].Transaction != "COMMIT" || st[4].Transaction != "" {
		t.Errorf("transactions %q %q %q", st[3].Transaction, st[4].Transaction, st[5].Transaction)
	}
	if st[6].XactAbort == nil || !*st[6].XactAbort || st[7].XactAbort == nil || *st[7].XactAbort || st[2].XactAbort != nil {
		t.Errorf("XACT_ABORT %v %v", st[6].XactAbort, st[7].XactAbort)
	}
	for _, tx := range []struct{ sql, kind string }{{"ROLLBACK", "ROLLBACK"}, {"ROLLBACK TRAN s", "ROLLBACK"}, {"SAVE TRAN s", "SAVEPOINT"},
		{"BEGIN DISTRIBUTED TRANSACTION", "BEGIN"}, {"COMMIT WORK", "COMMIT"}} {
		if r := Analyze(tx.sql, ""); r.Err != nil || r.Statements[0].Transaction != tx.kind || !slices.Contains(r.Statements[0].Analysis.Actions, tx.kind) {
			t.Errorf("%q: %+v %v", tx.sql, r.Statements, r.Err)
		}
	}
	// A USE inside IF may or may not run: later names read in both.
	r = Analyze("IF @x = 1 USE other\nDELETE FROM t", "prod")
	if r.Err != nil || len(r.Statements) != 2 || !slices.Contains(r.Statements[1].Analysis.Targets, "prod.dbo.t") || !slices.Contains(r.Statements[1].Analysis.Targets, "other.dbo.t") {
		t.Errorf("nested USE: %+v %v", r.Statements, r.Err)
	}
	// sp_prepexec's statement is its third argument.
	r = Analyze("DECLARE @h int; EXEC sp_prepexec @h OUTPUT, N'@p int', N'DELETE FROM t WHERE id = @p', 1", "prod")
	if r.Err != nil || len(r.Statements) != 2 || !slices.Equal(r.Statements[1].Analysis.Actions, []string{"DELETE"}) {
		t.Errorf("sp_prepexec: %+v %v", r.Statements, r.Err)
	}
}

func TestFailClosed(t *testing.T) {
	cases := []struct {
		sql   string
		guess []string // actions besides UNKNOWN
	}{
		{"SELECT * FROM WHERE x", []string{"SELECT"}},
		{"SELECT 'unterminated", []string{"SELECT"}},
		{"SELECT 1 /* unterminated", []string{"SELECT"}},
		{"DENY SELECT ON t TO bob", []string{"DENY", "SELECT"}},
		{"REVOKE SELECT ON t FROM bob", []string{"REVOKE", "SELECT"}},
		{"BULK INSERT t FROM 'c:\\x.csv'", []string{"BULK_INSERT", "INSERT"}},
		{"RESTORE DATABASE d FROM DISK = 'x'", []string{"RESTORE"}},
		{"SELECT 1; DROP TABLE t; SELEC", []string{"DROP", "DROP_TABLE", "SELECT"}},
		{"SELECT \x00", []string{"SELECT"}},
	}
	for _, c := range cases {
		r := Analyze(c.sql, "prod")
		if r.Err == nil || len(r.Statements) != 1 || r.Statements[0].Text != c.sql {
			t.Errorf("%q: %+v %v, want one statement and an error", c.sql, r.Statements, r.Err)
			continue
		}
		want := append([]string{domain.ActionUnknown}, c.guess...)
		slices.Sort(want)
		if got := r.Statements[0].Analysis.Actions; !slices.Equal(got, want) {
			t.Errorf("%q: actions %v, want %v", c.sql, got, want)
		}
		if !strings.Contains(r.Err.Error(), "") || errors.Is(r.Err, ErrUncheckable) {
			t.Errorf("%q: %v", c.sql, r.Err)
		}
	}
	// Not an error: the first statement of a batch may name a procedure
	// without EXEC.
	if r := Analyze("SELEC 1", "prod"); r.Err != nil || !slices.Equal(r.Statements[0].Analysis.Actions, []string{"EXEC"}) {
		t.Errorf("SELEC 1: %+v %v", r.Statements, r.Err)
	}
	if r := Analyze("", "prod"); r.Err != nil || len(r.Statements) != 0 {
		t.Errorf("empty: %+v %v", r.Statements, r.Err)
	}
	if r := Analyze(" -- only a comment\n;\nGO\n", "prod"); r.Err != nil || len(r.Statements) != 0 {
		t.Errorf("comment: %+v %v", r.Statements, r.Err)
	}
}

func TestAnalyzeProc(t *testing.T) {
	for _, c := range []struct {
		name    string
		actions []string
		targets []string
	}{
		{"dbo.MyProc", []string{"EXEC"}, []string{"myproc", "dbo.myproc", "prod.dbo.myproc"}},
		{"[other].[s x].[p]", []string{"EXEC"}, []string{"p", "s x.p", "other.s x.p"}},
		{"sp_who2", []string{"EXEC"}, []string{"sp_who2", "dbo.sp_who2", "prod.dbo.sp_who2"}},
		{"master..sp_who", []string{"EXEC"}, []string{"master.dbo.sp_who"}},
		{"sp_executesql", []string{"EXEC", domain.ActionUnknown}, []string{"sp_executesql"}},
		{"sp_cursoropen", []string{"EXEC", domain.ActionUnknown}, []string{"sp_cursoropen"}},
		{"sp_sqlexec", []string{"EXEC", domain.ActionUnknown}, []string{"sp_sqlexec"}},
		{"master.sys.sp_MSforeachtable", []string{"EXEC", domain.ActionUnknown}, []string{"sp_msforeachtable"}},
		{"xp_cmdshell", []string{"EXEC", domain.ActionUnknown}, []string{"xp_cmdshell"}},
	} {
		r := AnalyzeProc(c.name, "Prod")
		if r.Err != nil || len(r.Statements) != 1 || !slices.Equal(r.Statements[0].Analysis.Actions, c.actions) {
			t.Errorf("%q: %+v %v", c.name, r.Statements, r.Err)
			continue
		}
		for _, x := range c.targets {
			if !slices.Contains(r.Statements[0].Analysis.Targets, x) {
				t.Errorf("%q: targets %v lack %q", c.name, r.Statements[0].Analysis.Targets, x)
			}
		}
	}
	for _, bad := range []string{"", "a.", "p; DROP TABLE t", "[unterminated", "a.b.c.d.e", "p q"} {
		if r := AnalyzeProc(bad, "prod"); r.Err == nil || !slices.Contains(r.Statements[0].Analysis.Actions, domain.ActionUnknown) {
			t.Errorf("%q: %+v, want an error", bad, r.Statements)
		}
	}
}

func TestLimits(t *testing.T) {
	big := "SELECT 1 WHERE 1 = " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000)
	if r := Analyze(big, ""); !errors.Is(r.Err, ErrUncheckable) || !slices.Equal(r.Statements[0].Analysis.Actions, []string{domain.ActionUnknown}) {
		t.Errorf("deep: %v", r.Err)
	}
	if r := Analyze(strings.Repeat("IF 1=1 ", 3000)+"SELECT 1", ""); !errors.Is(r.Err, ErrUncheckable) {
		t.Errorf("deep IF: %v", r.Err)
	}
	if r := Analyze("SELECT '"+strings.Repeat("x", MaxSize)+"'", ""); !errors.Is(r.Err, ErrUncheckable) {
		t.Errorf("large: %v", r.Err)
	}
	// A long flat chain is not deep.
	if r := Analyze("SELECT 1 WHERE a = 1"+strings.Repeat(" OR a = 1", 3000), ""); r.Err != nil {
		t.Errorf("flat chain: %v", r.Err)
	}
	// Dynamic SQL nested deeper than maxNesting.
	s := "SELECT 1"
	for i := 0; i <= maxNesting; i++ {
		s = "EXEC ('" + strings.ReplaceAll(s, "'", "''") + "')"
	}
	if r := Analyze(s, ""); !errors.Is(r.Err, ErrUncheckable) {
		t.Errorf("nested dynamic SQL: %v", r.Err)
	}
}

func TestVocabulary(t *testing.T) {
	for _, a := range []string{"SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "DROP", "DROP_TABLE", "DROP_DATABASE", "DROP_VIEW",
		"DROP_PROCEDURE", "DROP_INDEX", "DROP_SCHEMA", "DROP_USER", "DROP_LOGIN", "TRUNCATE", "ALTER", "ALTER_TABLE", "CREATE",
		"CREATE_TABLE", "GRANT", "REVOKE", "DENY", "EXEC", "BULK_INSERT", "SHUTDOWN", "DBCC", "USE", "BEGIN", "COMMIT", "ROLLBACK",
		"SAVEPOINT", "SELECT_INTO", "EXECUTE_AS", domain.ActionUnknown, "dbcc_checkdb"} {
		if !IsAction(a) {
			t.Errorf("%s is not in the vocabulary", a)
		}
	}
	for _, a := range []string{"DORP", "TABLE_NAME", "GRANT_PERMISSION", "OPTION", "IF_STATEMENT", ""} {
		if IsAction(a) {
			t.Errorf("%q is in the vocabulary", a)
		}
	}
	if v := Actions(); !slices.IsSorted(v) || len(v) < 150 {
		t.Errorf("%d actions", len(v))
	}
}

// Actions and IsAction are the first calls of a process that parsed
// nothing yet (sidecar validate): they must set the grammar up themselves.
// A test process has usually parsed by then, so this asks a fresh one.
func TestVocabularyBeforeAnyParse(t *testing.T) {
	if os.Getenv("ANALYZER_FRESH_PROCESS") == "1" {
		if !IsAction("DROP_TABLE") || len(Actions()) < 150 {
			t.Fatal("the vocabulary is incomplete before any parse")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestVocabularyBeforeAnyParse$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ANALYZER_FRESH_PROCESS=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("in a fresh process: %v\n%s", err, out)
	}
}

func TestCache(t *testing.T) {
	c := NewCache()
	a := c.Analyze("SELECT * FROM t WHERE id = 1", "prod")
	b := c.Analyze("SELECT * FROM t WHERE id = 2 -- c", "prod")
	if b.Err != nil || b.Statements[0].Text != "SELECT * FROM t WHERE id = 2 -- c" || !slices.Equal(a.Statements[0].Analysis.Targets, b.Statements[0].Analysis.Targets) {
		t.Errorf("shape hit: %+v", b)
	}
	if r := c.Analyze("SELECT * FROM t WHERE id = 2", "other"); !slices.Contains(r.Statements[0].Analysis.Targets, "other.dbo.t") {
		t.Errorf("another database: %+v", r)
	}
	// Literals of dynamic SQL are not constants.
	c.Analyze("EXEC ('SELECT 1')", "prod")
	if r := c.Analyze("EXEC ('DROP TABLE t')", "prod"); !slices.Contains(r.Statements[0].Analysis.Actions, "DROP") {
		t.Errorf("dynamic SQL from the shape: %+v", r)
	}
	c.Analyze("INSERT INTO t EXEC ('SELECT 1')", "prod")
	if r := c.Analyze("INSERT INTO t EXEC ('DELETE FROM u')", "prod"); !slices.Contains(r.Statements[0].Analysis.Actions, "DELETE") {
		t.Errorf("dynamic SQL from the shape: %+v", r)
	}
	if r := newCache(0).Analyze("SELECT 1", ""); r.Err != nil {
		t.Error(r.Err)
	}
}

func TestWarm(t *testing.T) {
	done := make(chan struct{})
	for i := 0; i < 3; i++ {
		go func() { Warm(); done <- struct{}{} }()
	}
	for i := 0; i < 3; i++ {
		<-done
	}
	for _, s := range warmCorpus {
		if r := Analyze(s, "master"); r.Err != nil {
			t.Errorf("%q: %v", s, r.Err)
		}
	}
}

// A -- comment ends at CR or LF for the analyzer; one that holds another
// line end (NEL, U+2028 …) is Unknown, also through the shape cache, in
// case SQL Server ends the comment there and runs the rest of the line.
func TestOddLineEndInACommentIsUnknown(t *testing.T) {
	c := NewCache()
	c.Analyze("SELECT 1 --x", "prod") // the shape a hidden DELETE would share
	for _, q := range []string{"SELECT 1 --x\u2028DELETE FROM t", "SELECT 1 -- \u0085 DELETE FROM t", "EXEC ('SELECT 1 --\u2029DROP TABLE t')"} {
		for _, r := range []Result{Analyze(q, "prod"), c.Analyze(q, "prod")} {
			if r.Err == nil || !slices.Contains(r.Statements[0].Analysis.Actions, domain.ActionUnknown) {
				t.Errorf("%q: %+v, want Unknown", q, r.Statements)
			}
		}
	}
	if r := Analyze("SELECT 1 -- x\nDELETE FROM t", "prod"); r.Err != nil {
		t.Errorf("an ordinary comment: %v", r.Err)
	}
}

// A -- comment ends at a lone CR for the shape key as for the parser: the
// shape of "SELECT 2 --x<CR>DELETE FROM t" was that of "SELECT 1", so a
// cache that had seen "SELECT 1" answered SELECT and hid the DELETE.
func TestCommentEndsAtCarriageReturnThroughTheShapeCache(t *testing.T) {
	c := NewCache()
	c.Analyze("SELECT 1", "prod")
	r := c.Analyze("SELECT 2 --x\rDELETE FROM t", "prod")
	if len(r.Statements) != 2 || !slices.Contains(r.Statements[1].Analysis.Actions, "DELETE") {
		t.Fatalf("%+v, want the DELETE after the comment", r.Statements)
	}
}

func TestAtomic(t *testing.T) {
	for q, want := range map[string]bool{
		"DELETE FROM t WHERE id = 1": true, "UPDATE t SET a = 1;": true, "SELECT 1": true,
		"DELETE FROM a; DELETE FROM b": false, "BEGIN DELETE FROM a END": false, "IF 1 = 1 DELETE FROM a": false,
		"WHILE 1 = 1 DELETE TOP (1) FROM a": false, "EXEC ('DELETE FROM a')": false, "EXEC dbo.p": false, "dbo.p": false,
		"SELECT * FROM OPENQUERY(s, 'DELETE FROM a')": false, "SELEC 1": false,
	} {
		if got := Atomic(Analyze(q, "prod")); got != want {
			t.Errorf("%q: Atomic = %v, want %v", q, got, want)
		}
	}
}

// sp_executesql's arguments bind by position, as in an RPC
// (tds.RPCCall.Statement): the text is the first, whatever its name.
func TestDynamicArgumentByPosition(t *testing.T) {
	for q, want := range map[string]string{
		"EXEC sp_executesql @statement = N'SELECT 1'":                        "SELECT",
		"EXEC sp_executesql @params = N'DELETE FROM t', @stmt = N''":         "DELETE",
		"EXEC sp_executesql N'SELECT 1', N'@stmt nvarchar(9)', @stmt = N'x'": "SELECT",
	} {
		r := Analyze(q, "prod")
		if r.Err != nil || len(r.Statements) != 1 || !slices.Equal(r.Statements[0].Analysis.Actions, []string{want}) {
			t.Errorf("%q: %+v %v, want %s", q, r.Statements, r.Err, want)
		}
	}
}
