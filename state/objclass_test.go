package state

import (
	"testing"

	"github.com/proftop/proftop/decode"
)

// An object's class told without an allocation (objClass: the JVM agent's
// announcement of a lock it first sees in a monitor event) names the
// monitor and adds nothing to the objects: announcing 500 short-lived
// locks must not show 500 live objects of their class, a leak that is not
// there. The same announcements as allocations would count them.
func TestObjClassNamesAMonitorAndAllocatesNothing(t *testing.T) {
	for _, tc := range []struct {
		name     string
		announce func(obj int64) decode.Event
		live     int64
	}{
		{"objClass", func(obj int64) decode.Event { return &decode.ObjClass{ObjID: obj, ClassIDRef: 7, Time: ms(5)} }, 0},
		{"objAlloc", func(obj int64) decode.Event { return &decode.ObjAlloc{ObjID: obj, ClassIDRef: 7, Time: ms(5)} }, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(Options{})
			feed(a, defs()...)
			feed(a, &decode.ClassDef{ClassID: 7, Name: "org.h2.mvstore.tx.Transaction"})
			for obj := int64(0x1000); obj < 0x1000+500; obj++ {
				feed(a, tc.announce(obj),
					&decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: obj, ThreadOwner: 1, Time: ms(6)},
					&decode.MonContendedEntered{ThreadIDRef: 2, ObjIDRef: obj, Time: ms(7)})
			}
			s := a.Snapshot(t0, Query{CallersOf: -1})
			if m := monitorByObj(s, 0x1000+499); m == nil || m.Class != "org.h2.mvstore.tx.Transaction" {
				t.Fatalf("the monitor: %+v", m)
			}
			var live int64
			for _, c := range s.Objects.Classes {
				live += c.Live
			}
			if live != tc.live || s.HasObjects != (tc.live > 0) {
				t.Fatalf("%d live objects (objects pane shown: %v), want %d", live, s.HasObjects, tc.live)
			}
		})
	}
}
