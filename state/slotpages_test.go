package state

import "testing"

func TestSlotPagesKeepEntriesInPlace(t *testing.T) {
	var p slotPages[int64]
	const n = 3*slotPageSize + 5
	var first *int64
	for i := range n {
		p.add(int64(i) * 3)
		if i == slotPageSize {
			first = p.at(slotPageSize) // of the second page, which is made whole
		}
	}
	if p.len() != n || len(p.pages) != 4 {
		t.Fatalf("len %d in %d pages", p.len(), len(p.pages))
	}
	for i := range int32(n) {
		if got := *p.at(i); got != int64(i)*3 {
			t.Fatalf("slot %d: %d", i, got)
		}
	}
	if first != p.at(slotPageSize) {
		t.Fatal("an entry moved as the table grew")
	}
	*p.at(slotPageSize + 7) = -1
	if *p.at(slotPageSize + 7) != -1 || *p.at(slotPageSize + 6) != (slotPageSize+6)*3 {
		t.Fatal("an entry changed in place is not read back")
	}
	for i, pg := range p.pages[1:] {
		if cap(pg) != slotPageSize {
			t.Fatalf("page %d: capacity %d", i+1, cap(pg))
		}
	}
}

func TestSlotPagesSmallTableStaysSmall(t *testing.T) {
	var p slotPages[methodInfo]
	for range 3 {
		p.add(methodInfo{})
	}
	if len(p.pages) != 1 || cap(p.pages[0]) >= slotPageSize {
		t.Fatalf("%d pages, the first of capacity %d", len(p.pages), cap(p.pages[0]))
	}
}

func TestSlotPagesResetKeepsPagesForReuse(t *testing.T) {
	var p slotPages[int64]
	const n = 2*slotPageSize + 9
	for i := range n {
		p.add(int64(i))
	}
	second := &p.pages[1][:1][0]
	p.reset()
	if p.len() != 0 {
		t.Fatalf("len %d after reset", p.len())
	}
	for i := range n - 100 {
		p.add(int64(-i))
	}
	if p.len() != n-100 || len(p.pages) != 3 {
		t.Fatalf("len %d in %d pages after refilling", p.len(), len(p.pages))
	}
	if p.at(slotPageSize) != second {
		t.Fatal("a refilled table made its pages anew")
	}
	for i := range int32(n - 100) {
		if got := *p.at(i); got != -int64(i) {
			t.Fatalf("slot %d: %d after refilling", i, got)
		}
	}
}
