package analyzer

import (
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
)

func BenchmarkAnalyzeSelect(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Analyze("SELECT abalance FROM pgbench_accounts WHERE aid = 12345;")
	}
}

func BenchmarkScanSelect(b *testing.B) {
	for i := 0; i < b.N; i++ {
		pg.Scan("SELECT abalance FROM pgbench_accounts WHERE aid = 12345;")
	}
}
