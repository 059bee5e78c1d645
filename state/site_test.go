package state

import (
	"fmt"
	"testing"

	"github.com/proftop/proftop/decode"
)

// A lock's site is the first frame outside the JDK's locking code, the
// same whether read from a decoded stack in place or from its frames.
func TestSiteOfAStack(t *testing.T) {
	var mt monitorTable
	for _, tc := range []struct {
		methods []string
		lines   []int64
		want    string
	}{
		{[]string{"java.lang.Object.wait", "org.h2.mvstore.tx.Transaction.waitForThisToEnd", "org.h2.mvstore.tx.Transaction.waitFor"},
			[]int64{-2, 745, 700}, "org.h2.mvstore.tx.Transaction.waitForThisToEnd:745"},
		{[]string{"jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.park", "java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire", "com.acme.Cache.get"},
			[]int64{0, 211, 715, 0}, "com.acme.Cache.get"},
		{[]string{"sun.misc.Unsafe.park", "java.util.HashMap.get"}, []int64{0, 12}, "java.util.HashMap.get:12"},
		{[]string{"snapshot.Taker.run"}, []int64{3}, "snapshot.Taker.run:3"},
		{[]string{"java.lang.Object.wait", "java.lang.Thread.join"}, []int64{1, 2}, ""},
		{nil, nil, ""},
		{[]string{""}, []int64{0}, ""},
	} {
		st := decode.Stack{Methods: tc.methods, Lines: tc.lines}
		if got := mt.siteOfStack(&st); got != tc.want {
			t.Errorf("siteOfStack(%v) = %q, want %q", tc.methods, got, tc.want)
		}
		if got := siteOf(framesOf(&st)); got != tc.want {
			t.Errorf("siteOf(%v) = %q, want %q", tc.methods, got, tc.want)
		}
	}
	// The latest sites are kept by name: the same site twice is one
	// string, and more sites than are kept are still named right.
	for round := range 3 {
		for line := int64(1); line <= 40; line++ {
			st := decode.Stack{Methods: []string{"java.lang.Object.wait", "com.acme.Q.take"}, Lines: []int64{0, line}}
			if got, want := mt.siteOfStack(&st), fmt.Sprintf("com.acme.Q.take:%d", line); got != want {
				t.Fatalf("round %d: %q, want %q", round, got, want)
			}
		}
	}
}
