package tui

import "testing"

func TestShorten(t *testing.T) {
	for _, c := range []struct {
		f    func(string, int) string
		in   string
		w    int
		want string
	}{
		{shortMethod, "org.apache.logging.log4j.core.appender.OutputStreamManager.write", 64, "org.apache.logging.log4j.core.appender.OutputStreamManager.write"},
		{shortMethod, "org.apache.logging.log4j.core.appender.OutputStreamManager.write", 40, "o.a.l.l.c.a.OutputStreamManager.write"},
		{shortMethod, "org.apache.logging.log4j.core.appender.OutputStreamManager.write", 50, "o.a.l.l.core.appender.OutputStreamManager.write"},
		{shortMethod, "org.apache.logging.log4j.core.appender.OutputStreamManager.write", 24, "…tputStreamManager.write"},
		{shortMethod, "com.acme.billing.Ledger.post(J)V", 22, "c.a.b.Ledger.post(J)V"},
		{shortClass, "java.util.concurrent.locks.ReentrantLock$NonfairSync", 40, "j.u.c.locks.ReentrantLock$NonfairSync"},
		{shortLock, "java.util.concurrent.locks.ReentrantLock$NonfairSync@1b6d3586", 30, "…rantLock$NonfairSync@1b6d3586"},
		{shortLock, "com.acme.billing.Account@7f3a01b0", 24, "c.a.b.Account@7f3a01b0"},
		{shortLock, "org.h2.mvstore.tx.Transaction ×12 at org.h2.mvstore.tx.Transaction.waitForThisToEnd:745", 60, "o.h2.mvstore.tx.Transaction ×12 at …ion.waitForThisToEnd:745"},
		{middle, "http-nio-8080-exec-12", 15, "http-…0-exec-12"},
		{middle, "ForkJoinPool.commonPool-worker-3", 20, "ForkJoi…ool-worker-3"},
	} {
		got := c.f(c.in, c.w)
		if got != c.want || widthOf(got) > c.w {
			t.Errorf("%q in %d: %q (%d cells), want %q", c.in, c.w, got, widthOf(got), c.want)
		}
	}
}
