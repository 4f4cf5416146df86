package analyzer

import "sync"

// warmCorpus are statements agents typically send: parsing them fills the
// grammar's shared prediction cache (DFA), which makes later parses of
// similar statements tens of times faster.
var warmCorpus = []string{
	"SELECT 1",
	"SELECT @@VERSION",
	"SELECT TOP (10) * FROM dbo.users",
	"SELECT TOP 100 id, name, email FROM [dbo].[users] WHERE id = 1 AND name LIKE N'a%' ORDER BY id DESC",
	"SELECT u.id, COUNT(*) AS n, SUM(o.total) FROM users u LEFT JOIN orders o ON o.user_id = u.id WHERE o.created_at >= '2026-01-01' GROUP BY u.id HAVING COUNT(*) > 1 ORDER BY n DESC OFFSET 0 ROWS FETCH NEXT 20 ROWS ONLY",
	"SELECT name FROM sys.tables WHERE schema_id = SCHEMA_ID('dbo')",
	"SELECT * FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'users'",
	"SELECT DB_NAME(), SCHEMA_NAME(), CAST(1 AS int), CONVERT(varchar(10), GETDATE(), 120), ISNULL(NULL, 1)",
	"WITH c AS (SELECT id, ROW_NUMBER() OVER (PARTITION BY kind ORDER BY id) AS rn FROM t) SELECT * FROM c WHERE rn = 1",
	"SELECT * FROM a WHERE id IN (SELECT a_id FROM b WHERE x = 1) AND EXISTS (SELECT 1 FROM c WHERE c.id = a.id)",
	"SELECT CASE WHEN x > 0 THEN 'p' ELSE 'n' END FROM t WITH (NOLOCK)",
	"SELECT * INTO #tmp FROM dbo.users",
	"INSERT INTO dbo.users (name, email) VALUES (N'a', 'b@c'), (N'd', 'e@f')",
	"INSERT INTO archive SELECT * FROM users WHERE id < 10",
	"INSERT INTO t (a) OUTPUT inserted.id VALUES (1)",
	"UPDATE dbo.users SET name = N'x', updated_at = SYSDATETIME() WHERE id = 1",
	"UPDATE u SET u.x = o.y FROM users u JOIN other o ON o.id = u.id",
	"DELETE FROM dbo.users WHERE id = 1",
	"DELETE TOP (10) FROM logs WHERE created_at < DATEADD(day, -30, GETDATE())",
	"MERGE INTO t AS d USING s ON d.id = s.id WHEN MATCHED THEN UPDATE SET d.x = s.x WHEN NOT MATCHED THEN INSERT (id, x) VALUES (s.id, s.x) WHEN NOT MATCHED BY SOURCE THEN DELETE;",
	"TRUNCATE TABLE dbo.logs",
	"CREATE TABLE dbo.t (id int IDENTITY(1,1) PRIMARY KEY, name nvarchar(100) NOT NULL, created datetime2 DEFAULT SYSDATETIME())",
	"ALTER TABLE dbo.t ADD c int NULL",
	"CREATE INDEX ix ON dbo.t (name)",
	"DROP TABLE IF EXISTS dbo.t",
	"DROP VIEW v", "DROP PROCEDURE p", "DROP DATABASE d", "DROP INDEX ix ON t", "DROP SCHEMA s", "DROP USER u", "DROP LOGIN l",
	"CREATE OR ALTER VIEW v AS SELECT 1 AS x",
	"CREATE OR ALTER PROCEDURE p @a int AS BEGIN SET NOCOUNT ON; SELECT @a END",
	"EXEC sp_who", "EXEC dbo.p @a = 1, @b = N'x'", "EXECUTE sp_executesql N'SELECT * FROM t WHERE id = @id', N'@id int', @id = 1",
	"EXEC ('SELECT 1')",
	"DECLARE @x int = 1; SET @x = @x + 1; SELECT @x",
	"SET NOCOUNT ON", "SET XACT_ABORT ON", "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
	"BEGIN TRAN", "BEGIN TRANSACTION", "COMMIT", "COMMIT TRANSACTION", "ROLLBACK", "ROLLBACK TRANSACTION", "SAVE TRANSACTION s",
	"USE master",
	"IF OBJECT_ID('dbo.t') IS NOT NULL DROP TABLE dbo.t",
	"BEGIN TRY SELECT 1 END TRY BEGIN CATCH SELECT ERROR_MESSAGE() END CATCH",
	"GRANT SELECT ON dbo.t TO u",
	"DBCC CHECKDB", "SHUTDOWN", "KILL 53", "WAITFOR DELAY '00:00:01'", "PRINT 'x'",
}

var warmOnce sync.Once

// Warm parses warmCorpus and generatedCorpus (about 1,800 statements, 3 s
// of one core on the build machine) with the grammar once, so that a text
// the fast path leaves to the grammar (fast.go: EXEC, DDL, transactions,
// OUTPUT, texts teesql refuses) and built from the pieces agents use costs
// a warm parse on first sight (0.1–1 ms) rather than a cold one (10–150
// ms). A structure outside them still costs a cold parse the first time:
// BenchmarkAnalyzeFirstSight measures held-out texts in fresh processes. It blocks until done; concurrent and
// repeated calls are safe and cheap. Listeners call it in the background
// at start.
func Warm() {
	warmOnce.Do(func() {
		// The grammar itself, not Analyze: the fast path (fast.go) takes
		// most of these, and the grammar must be warm for the texts it
		// leaves (EXEC, DDL, transactions, OUTPUT …).
		for _, s := range warmCorpus {
			analyzeGrammar(s, "master", 0)
		}
		for _, s := range generatedCorpus() {
			analyzeGrammar(s, "master", 0)
		}
	})
}
