package analyzer

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fastEdgeTexts are texts around the fast path's edges: names quoted,
// qualified and commented, temporary tables and table variables, functions,
// control of flow, statements without separators, and keywords that must
// send a text to the grammar.
var fastEdgeTexts = []string{
	"SELECT * FROM users WHERE id = 1",
	"select a.x, b.* from [My DB].Sales.[Order Items] a join b on a.id=b.id",
	"SELECT * FROM other..t",
	"SELECT * FROM srv.db1.s.t",
	`SELECT * FROM "quoted name"`,
	"SELECT * FROM [a]]b]",
	"SELECT * FROM dbo . users",
	"SELECT * FROM dbo./* c */users",
	"SELECT * FROM [dbo].[users] u WITH (NOLOCK, INDEX(ix_users)) WHERE u.[id] = 1",
	"SELECT * FROM #tmp JOIN ##g ON #tmp.id = ##g.id",
	"DECLARE @t int; SELECT * FROM t WHERE id = @t",
	"DELETE FROM @t",
	"INSERT INTO dbo.t (a) VALUES (N'it''s')",
	"INSERT INTO archive SELECT * FROM users",
	"INSERT archive (a, b) SELECT a, b FROM users WHERE NOT EXISTS (SELECT 1 FROM archive x WHERE x.a = users.a)",
	"UPDATE u SET u.x = o.y FROM users u JOIN other o ON o.id = u.id",
	"UPDATE TOP (5) dbo.t SET a = a + 1, @x = b",
	"DELETE TOP (10) FROM logs WHERE id < 5",
	"DELETE u FROM users u JOIN banned b ON b.id = u.id",
	"SELECT * INTO newt FROM old",
	"SELECT * INTO #tmp FROM old",
	"SELECT a, b INTO other.dbo.copy FROM t WHERE 1 = 0",
	"WITH c AS (SELECT id FROM t) DELETE FROM c",
	"WITH a AS (SELECT 1 x), b AS (SELECT x FROM a) UPDATE t SET y = (SELECT MAX(x) FROM b)",
	"SELECT dbo.f(1), GETDATE()",
	"SELECT myf(1), LEN(x), LEFT(x, 2), RIGHT(x, 2), IIF(x > 1, 1, 0), NULLIF(a, b), COALESCE(a, b, c) FROM t",
	"SELECT other.dbo.f(x), sales.g(y) FROM t",
	"SELECT TRY_CAST(x AS int), TRY_CONVERT(int, x), CAST(y AS nvarchar(max)), CONVERT(varchar(10), z, 120) FROM t",
	"SELECT x FROM t WHERE y > ALL (SELECT y FROM u) AND z = ANY (SELECT z FROM v)",
	"SELECT CASE x WHEN 1 THEN 'a' ELSE 'b' END, CASE WHEN y IS NULL THEN 0 END FROM t",
	"SELECT a FROM t UNION ALL SELECT a FROM u EXCEPT SELECT a FROM v",
	"(SELECT a FROM t) UNION (SELECT b FROM u) ORDER BY 1",
	"SELECT * FROM (SELECT a FROM t) AS d JOIN u ON u.a = d.a",
	"SELECT * FROM t CROSS JOIN u",
	"SELECT SUM(x) OVER (PARTITION BY y ORDER BY z ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t",
	"SELECT 0x1F, 1.5, 1e3, $5, NULL, -x, ~y FROM t",
	"SELECT @@ROWCOUNT, @@SPID",
	"SELECT @x = COUNT(*) FROM t",
	"SET @x = (SELECT TOP 1 a FROM t)",
	"SET NOCOUNT ON; SET ANSI_NULLS ON",
	"DECLARE @a int = 1, @b nvarchar(10) = N'x'",
	"IF @x > 1 SELECT 1 ELSE DELETE FROM t",
	"IF EXISTS (SELECT 1 FROM t) BEGIN UPDATE t SET a = 1 END ELSE BEGIN INSERT INTO t (a) VALUES (1) END",
	"WHILE @i < 10 BEGIN SET @i = @i + 1; DELETE TOP (100) FROM logs END",
	"SELECT 1 SELECT 2 DELETE FROM t",
	"SELECT a FROM t DELETE FROM u WHERE x = 1",
	"SELECT 1 /* nested /* comment */ still */ FROM t",
	"SELECT 1 -- tail\nFROM t",
	"SELECT * FROM t ORDER BY a OFFSET 10 ROWS FETCH NEXT 5 ROWS ONLY",
	"SELECT * FROM t OPTION (RECOMPILE)",
	"SELECT a FROM t GROUP BY a HAVING COUNT(*) > 1",
	"SELECT [select], [delete] FROM [update]",
	"SELECT \"delete\" FROM t",
	"SELECT 'DELETE FROM t' AS s",
	"select * from Users where Id in (1, 2, 3)",
	";;SELECT 1;;",
	"SELECT N'é' FROM t",
	"UPDATE crm.customers SET name = N'Müller' WHERE id = 1 /* é */",
	"SELECT * FROM t WHERE city = N'東京' -- コメント\nDELETE FROM u WHERE a = 'ß'",
	"SELECT N'😀😀' AS a; DELETE FROM t WHERE b = N'é'; UPDATE [x y] SET c = N'𝄞' WHERE d = 1",
	"SELECT x.method() FROM t",
	"SELECT 1;\nSELECT 2;\n",
	// The grammar's: each must not take the fast path.
	// UNBOUNDED (bounds.go): both paths read the WHERE's shape alike.
	"DELETE FROM t WHERE 1 = 1 OR id = 2",
	"UPDATE t SET a = 1 WHERE NOT (id = 1 AND 1 = 0)",
	"DELETE FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.x = t.x)",
	"DELETE FROM t WHERE id IN (SELECT id FROM u) AND @all = 1",
	"UPDATE t SET a = 1 WHERE @all = 1 OR (id BETWEEN 1 AND 2)",
	"DELETE FROM t WHERE NOT NOT (1 = 0)",
	"DELETE t FROM t CROSS JOIN u WHERE u.flag = 1",
	"DELETE t FROM t JOIN u ON t.id = u.id WHERE [T].flag = 1 OR flag = 2",
	"UPDATE [U] SET x = 1 FROM users [u] WHERE [u].[ID] = 5",
	"DELETE @t FROM @t JOIN u ON 1 = 1 WHERE @T.a = 1",
	"DELETE FROM dbo.t WHERE dbo.t.id = 1",
	`DELETE FROM t WHERE "x" = 'x'`,
	`UPDATE t SET a = 1 WHERE [a"b] = 1 AND "t".id = 2`,
	"SELECT 1; DROP TABLE t",
	// teesql drops the ORDER BY of a parenthesized query, and the OFFSET
	// … FETCH (and FOR) of a parenthesized query or a UNION: the
	// subqueries and functions in them would not be in the analysis.
	"(SELECT a FROM t) ORDER BY dbo.f(a)",
	"(SELECT a FROM t) ORDER BY (SELECT TOP 1 s.x FROM secret s WHERE s.id = a)",
	"SELECT a FROM t UNION SELECT a FROM u ORDER BY a OFFSET (SELECT COUNT(*) FROM secret) ROWS",
	"SELECT a FROM t UNION SELECT a FROM u ORDER BY a OFFSET 1 ROWS FETCH NEXT (SELECT COUNT(*) FROM secret) ROWS ONLY",
	"SELECT * FROM (SELECT a FROM t UNION SELECT a FROM u ORDER BY a OFFSET (SELECT COUNT(*) FROM secret) ROWS) d",
	"(SELECT a FROM t) FOR XML PATH",
	// teesql takes ROWS, NEXT and ONLY of OFFSET … FETCH as optional, and
	// reads a cursor's FETCH after the clause as its own.
	"SELECT a FROM t ORDER BY a OFFSET 1 ROWS FETCH c",
	"SELECT a FROM t ORDER BY a OFFSET 1 FETCH NEXT 1 ROWS ONLY",
	"SELECT a FROM t ORDER BY a OFFSET 1 ROWS FETCH NEXT 1",
	"EXEC sp_who",
	"EXEC ('DELETE FROM t')",
	"USE other; SELECT 1",
	"BEGIN TRAN; DELETE FROM t; COMMIT",
	"SET XACT_ABORT ON",
	"SELECT * FROM OPENQUERY(srv, 'DELETE FROM t')",
	"MERGE t USING s ON t.id = s.id WHEN MATCHED THEN DELETE;",
	"SELECT 1\nGO\nSELECT 2",
	"DELETE FROM t OUTPUT deleted.* INTO archive",
	"SELECT * FROM [Müller]",
	"DELETE FROM dbo.t. WHERE 1=1",
	"SELECT * FROM t WHERE EXISTS (SELECT a INTO newt FROM u)",
	"SELECT 1\u00a0FROM t",
	"SELECT '\xff' FROM t",
	"\ufeffSELECT 1 FROM t",
	"SELECT 1 /* open",
	"SELECT * FROM t; TRUNCATE TABLE t",
	"sp_who",
	"SELECT * FROM dbo.tvf(1)",
	"DECLARE @t TABLE (a int); INSERT INTO @t VALUES (1)",
	"SELECT CAST(x AS dbo.mytype) FROM t",
	// teesql skips comments otherwise than SQL Server: it does not nest
	// /* */ (reading the SELECT of secret as a string) and ends -- at LF
	// only (reading the subquery after the CR as a comment).
	"/* /* */ SELECT ' */ SELECT * FROM secret --'",
	"/* /* */ DELETE FROM @v WHERE a = ' */ DELETE FROM secret --'",
	"SELECT * FROM t WHERE x IN (1 --\r, (SELECT 1 FROM secret)\n)",
	// teesql skips a control byte as a space, where lex reads a token that
	// spanText kept in the name (\x01users, not users).
	"DELETE FROM dbo.\x01users",
	"DELETE FROM dbo\x02.users",
	// teesql's money literal takes a sign after $: "$-" then reads
	// "- '…'" as code, a string over the subquery SQL Server runs.
	"SELECT $-- '\n, (SELECT 1 FROM secret) --'\n",
	"SELECT 1 WHERE 1 = $-- '\n AND EXISTS (SELECT 1 FROM secret) --'",
	// teesql's FROM clause keeps the table references before one it fails
	// to parse and drops the tokens it read: the grammar holds these as
	// syntax errors, the fast path would have named no table.
	"SELECT * FROM secret AS",
	"DELETE FROM t WHERE a IN (SELECT 1 FROM secret JOIN)",
	"SELECT * FROM t AS x JOIN (SELECT 1 FROM secret)",
	// teesql skips the tokens of an OPTION list it does not read as a hint's.
	"SELECT * FROM t OPTION (SELECT 1 FROM secret)",
	"SELECT * FROM t AS x OPTION (RECOMPILE SELECT 1 FROM secret)",
}

// fastCorpus is every text the fast path is checked on.
func fastCorpus() []string {
	texts := append(slices.Clone(warmCorpus), generatedCorpus()...)
	texts = append(texts, fastEdgeTexts...)
	for _, k := range slices.Sorted(mapKeys(benchTexts)) {
		texts = append(texts, benchTexts[k])
	}
	for _, k := range slices.Sorted(mapKeys(heldOut)) {
		texts = append(texts, heldOut[k])
	}
	return texts
}

// TestFastPathAgrees: on every text the fast path takes, it gives what the
// grammar gives (statements, their texts, actions, targets, functions).
func TestFastPathAgrees(t *testing.T) {
	took := 0
	texts := fastCorpus()
	for _, s := range texts {
		for _, db := range []string{"", "app"} {
			fr, ok := fastAnalyze(s, db, lex(s))
			if !ok {
				continue
			}
			took++
			if gr := analyzeGrammar(s, db, 0); !agrees(fr, gr) {
				t.Errorf("%q in %q:\nfast:    %s\ngrammar: %s", s, db, describe(fr), describe(gr))
			}
		}
	}
	// Nearly every warm statement is DML an agent sends: if the fast path
	// stopped taking them, the test above would check nothing.
	if took < len(texts) {
		t.Errorf("the fast path took %d of %d (text, database) pairs, fewer than expected", took, 2*len(texts))
	}
	t.Logf("the fast path took %d of %d (text, database) pairs", took, 2*len(texts))
}

// agrees reports whether the fast path's result is the grammar's. One
// difference is allowed: the grammar lists a built-in function called with
// arguments SQL Server refuses (getdate(1)) as a user function; the fast
// path never lists a built-in's name (TestBuiltinFunctionsAsTheGrammarReadsThem).
func agrees(fast, grammar Result) bool {
	if len(fast.Statements) != len(grammar.Statements) {
		return false
	}
	g := grammar
	g.Statements = slices.Clone(grammar.Statements)
	for i := range g.Statements {
		var fs []string
		for _, f := range g.Statements[i].Analysis.Functions {
			if !builtinFunctions[f] || slices.Contains(fast.Statements[i].Analysis.Functions, f) {
				fs = append(fs, f)
			}
		}
		g.Statements[i].Analysis.Functions = fs
	}
	return reflect.DeepEqual(fast, g)
}

// covers reports whether the fast path's result has the grammar's
// statements, each with at least the grammar's actions, targets, effects
// and (but for built-ins, see agrees) functions.
func covers(fast, grammar Result) bool {
	if len(fast.Statements) != len(grammar.Statements) || (fast.Err == nil) != (grammar.Err == nil) {
		return false
	}
	sub := func(a, b []string, skip map[string]bool) bool {
		for _, v := range a {
			if !skip[v] && !slices.Contains(b, v) {
				return false
			}
		}
		return true
	}
	for i, g := range grammar.Statements {
		f := fast.Statements[i]
		if f.Text != g.Text || f.UseDB != g.UseDB || f.Transaction != g.Transaction || !reflect.DeepEqual(f.XactAbort, g.XactAbort) ||
			!sub(g.Analysis.Actions, f.Analysis.Actions, nil) || !sub(g.Analysis.Targets, f.Analysis.Targets, nil) ||
			!sub(g.Analysis.Functions, f.Analysis.Functions, builtinFunctions) || !sub(g.Analysis.Effects, f.Analysis.Effects, nil) {
			return false
		}
	}
	return true
}

func describe(r Result) string {
	var b strings.Builder
	if r.Err != nil {
		fmt.Fprintf(&b, "err=%v ", r.Err)
	}
	for _, st := range r.Statements {
		fmt.Fprintf(&b, "\n  %q A=%v T=%v F=%v E=%v use=%q tx=%q xa=%v", st.Text, st.Analysis.Actions, st.Analysis.Targets,
			st.Analysis.Functions, st.Analysis.Effects, st.UseDB, st.Transaction, st.XactAbort)
	}
	return b.String()
}

// TestFastPathTakes names texts the fast path must take (typical agent
// statements, the 2 KB batch of the first-sight bound) and texts it must
// leave to the grammar.
func TestFastPathTakes(t *testing.T) {
	for _, s := range []string{benchTexts["select"], benchTexts["join"], benchTexts["insert"], benchTexts["update"],
		benchTexts["catalog"], batch2K(), heldOut["batch775"], "SELECT N'é' FROM t",
		"SELECT N'😀😀' AS a; DELETE FROM t WHERE b = N'é'; UPDATE [x y] SET c = N'𝄞' WHERE d = 1"} {
		if _, ok := fastAnalyze(s, "app", lex(s)); !ok {
			t.Errorf("the fast path did not take %q", s)
		}
	}
	for _, s := range fastEdgeTexts[slices.Index(fastEdgeTexts, "SELECT 1; DROP TABLE t"):] {
		if r, ok := fastAnalyze(s, "app", lex(s)); ok {
			t.Errorf("the fast path took %q: %s", s, describe(r))
		}
	}
}

// TestBuiltinFunctionsAsTheGrammarReadsThem: each of builtinFunctions,
// called with the arguments SQL Server takes, is no function of the grammar
// path's analysis, and a name outside the list is. (Called with arguments
// it does not take, getdate(1), the grammar reads a built-in's name as a
// user function's; SQL Server refuses such a call, and an unqualified name
// is never a user's scalar function, so the fast path does not list it:
// see agrees.)
func TestBuiltinFunctionsAsTheGrammarReadsThem(t *testing.T) {
	args := []string{"(a)", "()", "(a, b)", "(a, b, c)", "(day, a, b)", "(a) OVER (ORDER BY b)", "() OVER (ORDER BY b)",
		"(a) WITHIN GROUP (ORDER BY b) OVER ()", "(a, b, c, d)", "(a, b, c, d, e)", "(a, b, c, d, e, f)",
		"(a, b, c, d, e, f, g)", "(a, b, c, d, e, f, g, h)", "(a, b, c, d, e, f, g, h, i, j)", "(a, b) OVER (ORDER BY c)",
		"(*)", "(day, a)", "('x')", "(a, b, c, d, 1)", "(a, b, c, d, e, f, g, h, i, 1)", "('x', a)", "(a, 'x')", "('x', 'y')", "(a, 'x', b)"}
	for name := range builtinFunctions {
		var seen []string
		builtin := false
		for _, a := range args {
			r := analyzeGrammar("SELECT "+name+a+" FROM t", "app", 0)
			if r.Err != nil {
				continue
			}
			seen = append(seen, a)
			if len(r.Statements[0].Analysis.Functions) == 0 {
				builtin = true
				break
			}
		}
		if !builtin {
			t.Errorf("%s: no call of it the grammar reads as a built-in (read as a user function with %v)", name, seen)
		}
	}
	if f := analyzeGrammar("SELECT notbuiltin(a) FROM t", "app", 0).Statements[0].Analysis.Functions; !slices.Equal(f, []string{"notbuiltin"}) {
		t.Errorf("notbuiltin(a): functions %v", f)
	}
}

// FuzzFastPath: whatever text the fast path takes, the grammar, when it
// reads the text too, finds nothing the fast path does not (covers); and
// the fast path never fails or hangs. The fast path may find more on texts
// SQL Server refuses (DELETE a FROM user: USER is reserved, the grammar
// reads no table there): more only makes more rules hold a text.
func FuzzFastPath(f *testing.F) {
	for _, s := range fastEdgeTexts {
		f.Add(s)
	}
	for _, k := range slices.Sorted(mapKeys(benchTexts)) {
		f.Add(benchTexts[k])
	}
	f.Add("DELETE A FROM user") // the fast path finds the table user, the grammar none
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4<<10 || checkLimits(text) != nil {
			return
		}
		l := lex(text)
		if checkDepth(l.toks, text) != nil {
			return
		}
		fr, ok := fastAnalyze(text, "app", l)
		if !ok {
			return
		}
		if gr := analyzeGrammar(text, "app", 0); gr.Err == nil && !covers(fr, gr) {
			t.Errorf("%q:\nfast:    %s\ngrammar: %s", text, describe(fr), describe(gr))
		}
	})
}
