package analyzer

import "strings"

// generatedCorpus returns statements built from the pieces agents combine
// (select items, table references, predicates, endings) in each place a
// query appears (a SELECT, UPDATE and DELETE, an IN or EXISTS subquery, a
// CTE, INSERT … SELECT). The grammar's prediction cache keys on token
// kinds, not names or constants, so warming with these combinations makes
// the first sight of a statement built from the same pieces a warm parse.
// Every piece meets every other of its kind's neighbours at least once;
// the combinations rotate rather than multiply, to bound the warm-up.
func generatedCorpus() []string {
	var out []string
	add := func(s string) { out = append(out, s) }
	for i, t := range warmTables {
		for j, p := range warmPredicates {
			item := warmItems[(i*5+j)%len(warmItems)]
			tail := warmTails[(i+j*3)%len(warmTails)]
			q := qualify(p, t)
			add("SELECT " + item + " FROM " + t + q + tail + ";")
			if !strings.Contains(t, " ") { // UPDATE and DELETE FROM take no alias
				add("UPDATE " + t + " SET " + warmSets[(i+j)%len(warmSets)] + q + ";")
				add("DELETE FROM " + t + q + ";")
			}
			add("SELECT a.id FROM dbo.a a WHERE a.id IN (SELECT b_id FROM " + t + q + ");")
			add("UPDATE dbo.u SET n = 0 WHERE id IN (SELECT u_id FROM " + t + q + ");")
			add("SELECT 1 WHERE EXISTS (SELECT 1 FROM " + t + q + ");")
			add("WITH c AS (SELECT " + item + " FROM " + t + q + ") SELECT * FROM c;")
			add("INSERT INTO dbo.t2 (a, b) SELECT " + item + " FROM " + t + q + ";")
		}
	}
	for i, j := range warmJoins {
		item := warmItems[(i*3)%len(warmItems)]
		p := warmPredicates[(i*7)%len(warmPredicates)]
		add("SELECT " + item + " FROM " + j + qualify(p, "a") + warmTails[i%len(warmTails)] + ";")
		add("UPDATE a SET a.x = 1 FROM " + j + qualify(p, "a") + ";")
		add("DELETE a FROM " + j + qualify(p, "a") + ";")
	}
	for _, it := range warmItems {
		add("SELECT " + it + " FROM dbo.users a;")
	}
	return append(out, warmStatements...)
}

// qualify makes predicate p (written with the alias a.) fit table
// reference t: qualified when t has an alias, bare otherwise.
func qualify(p, t string) string {
	if strings.HasSuffix(t, " a") || strings.Contains(t, " a ") {
		return p
	}
	return strings.ReplaceAll(p, "a.", "")
}

var warmTables = []string{
	"dbo.t", "dbo.t a", "dbo.t AS a", "[dbo].[t] a", "t", "#tmp", "dbo.t a WITH (NOLOCK)", "db.dbo.t",
}

var warmSets = []string{
	"x = 1", "x = x + 1, d = SYSDATETIME(), s = N'v'", "last_seen = SYSDATETIME()", "s = @s", "n = n - 1, m = NULL",
	"d = DATEADD(day, 1, d)", "s = CASE WHEN x > 0 THEN N'a' ELSE N'b' END",
}

var warmItems = []string{
	"a.id", "a.id, a.name", "a.id AS k, a.name AS n", "id, name", "COUNT(*)", "COUNT(a.id) AS c", "COUNT(DISTINCT a.id)",
	"SUM(a.price * a.qty) AS total", "MAX(a.created_at) AS last_at", "MIN(a.x), AVG(a.y)",
	"CASE WHEN a.x < 0 THEN N'neg' ELSE N'ok' END AS s", "ROW_NUMBER() OVER (PARTITION BY a.kind ORDER BY a.created_at DESC) AS rn",
	"RANK() OVER (ORDER BY a.x) AS r", "CAST(a.x AS int)", "CONVERT(varchar(10), a.d, 120)", "ISNULL(a.x, 0) AS x",
	"COALESCE(a.x, a.y, N'') AS z", "DATEADD(day, -7, GETDATE()) AS d", "DATEDIFF(minute, a.s, a.e) AS m", "TOP (10) a.id",
	"TOP 5 *", "DISTINCT a.kind", "a.*", "*", "SUM(CASE WHEN a.ok = 1 THEN 1 ELSE 0 END) AS n",
	"LEN(a.name), UPPER(a.name), SUBSTRING(a.name, 1, 3)", "a.x + a.y AS s, a.x - 1, a.x / 2.0", "N'literal' AS l, 1 AS one",
	"(SELECT COUNT(*) FROM dbo.b WHERE b.a_id = a.id) AS n", "FORMAT(a.d, 'yyyy-MM') AS month", "STRING_AGG(a.name, ',') AS names",
}

var warmPredicates = []string{
	"", " WHERE a.id = 42", " WHERE a.id = @id", " WHERE a.name = N'x' AND a.ok = 1", " WHERE a.x > 0 OR a.y IS NULL",
	" WHERE a.created_at > DATEADD(day, -30, SYSDATETIME())", " WHERE a.created_at < SYSDATETIME()", " WHERE a.created_at >= @since",
	" WHERE a.id IN (1, 2, 3)", " WHERE a.id IN (SELECT b_id FROM dbo.b WHERE k = 1)", " WHERE a.id NOT IN (SELECT b.id FROM dbo.b b)",
	" WHERE EXISTS (SELECT 1 FROM dbo.b b WHERE b.a_id = a.id)", " WHERE NOT EXISTS (SELECT 1 FROM dbo.b WHERE x = 1)",
	" WHERE a.name LIKE N'a%'", " WHERE a.x BETWEEN 1 AND 10", " WHERE a.x IS NOT NULL AND a.y <> 2", " WHERE a.status = N'failed' AND a.n < 3",
	" WHERE a.d >= '2026-01-01' AND a.d < '2026-02-01'", " WHERE a.expires_at < GETUTCDATE()", " WHERE (a.x = 1 OR a.x = 2) AND a.y = 3",
	" WHERE a.x = (SELECT MAX(x) FROM dbo.b)", " WHERE a.d > DATEADD(month, -1, GETDATE()) AND a.k IN (N'a', N'b')",
	" WHERE a.x <= @x", " WHERE a.x <> @x", " WHERE a.x != 0", " WHERE a.d < @until AND a.d >= @since", " WHERE a.x > 0.5",
	" WHERE a.n >= 10", " WHERE a.s IS NULL OR a.s = N''",
}

var warmTails = []string{
	"", " ORDER BY 1", " ORDER BY a.id DESC", " GROUP BY a.id", " GROUP BY a.id, a.name HAVING COUNT(*) > 1",
	" GROUP BY a.kind ORDER BY 2 DESC", " ORDER BY a.id OFFSET 0 ROWS FETCH NEXT 20 ROWS ONLY", " GROUP BY a.id ORDER BY total DESC",
	" ORDER BY a.d DESC, a.id", " OPTION (RECOMPILE)",
}

var warmJoins = []string{
	"dbo.a a JOIN dbo.b b ON b.a_id = a.id", "dbo.a a INNER JOIN dbo.b AS b ON a.id = b.a_id",
	"dbo.a a LEFT JOIN dbo.b b ON b.a_id = a.id AND b.d >= @since", "dbo.a a LEFT OUTER JOIN dbo.b b ON b.a_id = a.id",
	"dbo.a a RIGHT JOIN dbo.b b ON b.a_id = a.id", "dbo.a a FULL OUTER JOIN dbo.b b ON b.a_id = a.id",
	"dbo.a a JOIN dbo.b b ON a.id = b.a_id JOIN dbo.c c ON c.id = b.c_id", "dbo.a a, dbo.b b",
	"dbo.a a CROSS JOIN dbo.b b", "dbo.a a CROSS APPLY (SELECT TOP 1 * FROM dbo.b b WHERE b.a_id = a.id) b",
	"dbo.a a OUTER APPLY (SELECT TOP 1 x FROM dbo.b WHERE b.a_id = a.id) b", "(SELECT id, kind FROM dbo.t) a",
	"sys.tables a JOIN sys.schemas s ON s.schema_id = a.schema_id", "dbo.a a JOIN dbo.b b WITH (NOLOCK) ON b.a_id = a.id",
}

var warmStatements = []string{
	"INSERT INTO dbo.t (a, b, c) VALUES (1, N'x', SYSDATETIME());", "INSERT INTO audit.e (k, d) VALUES (N'a', N'b'), (N'c', N'd');",
	"INSERT dbo.t VALUES (1, 2);", "INSERT INTO #tmp SELECT * FROM dbo.t;",
	"DECLARE @from datetime2 = DATEADD(hour, -6, GETUTCDATE());", "DECLARE @n int; SET @n = (SELECT COUNT(*) FROM dbo.t);",
	"DECLARE @a int = 1, @b nvarchar(50) = N'x';", "SELECT @n = COUNT(*) FROM dbo.t;",
	"IF EXISTS (SELECT 1 FROM dbo.jobs WHERE status = N'x') BEGIN UPDATE dbo.jobs SET status = N'y' WHERE status = N'x'; END",
	"IF @n > 0 BEGIN DELETE FROM dbo.t WHERE id = @n; END ELSE BEGIN PRINT N'none'; END",
	"IF OBJECT_ID(N'dbo.t', N'U') IS NULL CREATE TABLE dbo.t (id int NOT NULL PRIMARY KEY, v nvarchar(max) NULL);",
	"WHILE @n > 0 BEGIN SET @n = @n - 1; END",
	"SET NOCOUNT ON;", "BEGIN TRAN; UPDATE dbo.t SET x = 1 WHERE id = 2; COMMIT;", "BEGIN TRANSACTION; DELETE FROM dbo.t; ROLLBACK TRANSACTION;",
	"UPDATE TOP (100) dbo.t SET x = 1 OUTPUT inserted.id WHERE x = 0;", "DELETE FROM dbo.t OUTPUT deleted.* WHERE id = 1;",
	"SELECT a.id FROM dbo.a a UNION ALL SELECT b.id FROM dbo.b b;", "SELECT id FROM dbo.a EXCEPT SELECT id FROM dbo.b;",
	"WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT * FROM b;",
	"EXEC dbo.p @a = 1, @b = N'x';", "EXEC sp_executesql N'SELECT * FROM t WHERE id = @id', N'@id int', @id = 1;",
	"EXEC sp_columns @table_name = N't';", "EXEC sp_helptext N'dbo.v';",
	"SELECT name, type_desc FROM sys.objects WHERE type = 'U' ORDER BY name;",
	"SELECT c.name, t.name AS type, c.max_length FROM sys.columns c JOIN sys.types t ON t.user_type_id = c.user_type_id WHERE c.object_id = OBJECT_ID(N'dbo.t');",
	"SELECT TABLE_SCHEMA, TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_TYPE = 'BASE TABLE';",
	"SELECT SERVERPROPERTY('ProductVersion'), @@SERVERNAME, DB_NAME();",
	"ALTER TABLE dbo.t ADD c nvarchar(20) NULL;", "ALTER TABLE dbo.t DROP COLUMN c;", "CREATE INDEX ix_t_c ON dbo.t (c) INCLUDE (d);",
	"DROP TABLE IF EXISTS #tmp;", "TRUNCATE TABLE dbo.logs;",
	"MERGE dbo.t AS d USING (SELECT id, x FROM dbo.s) AS s ON d.id = s.id WHEN MATCHED THEN UPDATE SET d.x = s.x WHEN NOT MATCHED THEN INSERT (id, x) VALUES (s.id, s.x);",
}
