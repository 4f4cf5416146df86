package analyzer

import (
	"strconv"
	"testing"
)

// Typical agent statements.
var benchTexts = map[string]string{
	"select":   "SELECT id, email, created_at FROM users WHERE id = 12345",
	"join":     "SELECT o.id, SUM(i.price * i.qty) AS total FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.created_at > NOW() - INTERVAL 7 DAY GROUP BY o.id ORDER BY total DESC LIMIT 20",
	"insert":   "INSERT INTO `events` (`user_id`,`kind`,`payload`,`created_at`) VALUES (42,'login','{\"ip\":\"10.0.0.1\"}','2026-12-01 04:00:00')",
	"update":   "UPDATE users SET email = 'a@example.com', updated_at = NOW() WHERE id = 7",
	"show":     "SHOW FULL COLUMNS FROM `users`",
	"sysbench": "SELECT c FROM sbtest1 WHERE id=5012",
}

// BenchmarkAnalyzeFirstSight: a text the cache has never seen (a parse).
func BenchmarkAnalyzeFirstSight(b *testing.B) {
	for name, sql := range benchTexts {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Analyze(sql, "app")
			}
		})
	}
}

// BenchmarkCacheHit: the same text again (what a listener pays per repeated
// statement).
func BenchmarkCacheHit(b *testing.B) {
	for name, sql := range benchTexts {
		b.Run(name, func(b *testing.B) {
			c := NewCache()
			c.Analyze(sql, "app")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Analyze(sql, "app")
			}
		})
	}
}

// BenchmarkCacheShapeHit: the same statement with another constant each
// time (SELECT … WHERE id = 1, = 2, …), never seen as such: one lexical
// pass, no parse.
func BenchmarkCacheShapeHit(b *testing.B) {
	c := NewCache()
	c.Analyze("SELECT c FROM sbtest1 WHERE id=1", "app")
	texts := make([]string, b.N)
	for i := range texts {
		texts[i] = "SELECT c FROM sbtest1 WHERE id=" + strconv.Itoa(i+2)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Analyze(texts[i], "app")
	}
}
