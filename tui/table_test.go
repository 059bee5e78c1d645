package tui

import (
	"slices"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// numRows is a one-column table of numbers for the table's own tests.
type numRows []int64

func (r numRows) Len() int                      { return len(r) }
func (r numRows) ID(i int) int64                { return int64(i) }
func (r numRows) Cell(i, col int) string        { return "" }
func (r numRows) Num(i, col int) int64          { return r[i] }
func (r numRows) Text(i, col int) string        { return "" }
func (r numRows) Name(i int) string             { return "" }
func (r numRows) Kind(i int) rowKind            { return rowNormal }
func (r numRows) CellStyle(i, col int) cellHint { return hintNone }

// Until the user moves it, the selection is the first row whatever the
// rows' order does, and the table shows its top; once moved, it follows
// its row as the rows re-sort, scrolling to keep it on screen.
func TestSelectionStaysOnTopUntilMoved(t *testing.T) {
	tb := newTable([]column{{title: "N", width: 5, right: true}}, 0) // descending
	rows := numRows{90, 80, 70, 60, 50, 40}
	tb.layout(rows, 3)
	if tb.selID != 0 || tb.offset != 0 {
		t.Fatalf("first layout: selected %d, offset %d", tb.selID, tb.offset)
	}
	// Row 0 sinks to the bottom: the selection does not go with it.
	rows = numRows{10, 80, 70, 60, 50, 40}
	tb.layout(rows, 3)
	if tb.selID != 1 || tb.offset != 0 || tb.order[0] != 1 {
		t.Fatalf("after a re-sort, unmoved: selected %d, offset %d, first row %d", tb.selID, tb.offset, tb.order[0])
	}
	// The user moves down one: now the selection follows its row.
	tb.move(rows, 1)
	if tb.selID != 2 {
		t.Fatalf("moved to %d", tb.selID)
	}
	rows = numRows{10, 80, 5, 60, 50, 40}
	tb.layout(rows, 3)
	if tb.selID != 2 || tb.pos != 5 || tb.offset != 3 {
		t.Fatalf("after a re-sort, moved: selected %d at %d, offset %d", tb.selID, tb.pos, tb.offset)
	}
	// Back to the top (home): unchosen again.
	tb.toTop()
	tb.layout(rows, 3)
	if tb.selID != 1 || tb.offset != 0 || tb.chosen {
		t.Fatalf("after home: selected %d, offset %d, chosen %v", tb.selID, tb.offset, tb.chosen)
	}
}

// The fast count of styled ASCII agrees with the grapheme-aware one, and
// leaves to it what it cannot count.
func TestStyledASCIIWidthAgreesWithTheFullCount(t *testing.T) {
	for _, s := range []string{
		"", "plain", "\x1b[1mbold\x1b[0m", "\x1b[38;2;1;2;3mrgb\x1b[m tail", "\x1b[4:3mcurly\x1b[0m",
		"é", "\x1b]8;;http://x\x07link\x1b]8;;\x07", "\x1b[1", "tab\there", "\x1b[12Xnot sgr", "日本",
	} {
		w, ok := styledASCIIWidth(s)
		if !ok {
			continue
		}
		if full := ansi.StringWidth(s); w != full {
			t.Errorf("%q: %d cells, the full count %d", s, w, full)
		}
	}
	for _, s := range []string{"日", "\x1b]8;;u\x07x", "\x1b[1", "a\tb", "\x1b[12X"} {
		if _, ok := styledASCIIWidth(s); ok {
			t.Errorf("%q counted fast", s)
		}
	}
}

// Every rune the fast count takes for one cell is one cell to the full count.
func TestOneCellRunesAreOneCell(t *testing.T) {
	for r := rune(0x80); r < 0x3000; r++ {
		if !oneCell(r) {
			continue
		}
		if w := ansi.StringWidth(string(r)); w != 1 {
			t.Errorf("%U: %d cells to the full count", r, w)
		}
	}
}

// nameRows are rows known by their names alone.
type nameRows []string

func (r nameRows) Len() int                      { return len(r) }
func (r nameRows) ID(i int) int64                { return int64(i) }
func (r nameRows) Cell(i, col int) string        { return r[i] }
func (r nameRows) Num(i, col int) int64          { return 0 }
func (r nameRows) Text(i, col int) string        { return r[i] }
func (r nameRows) Name(i int) string             { return r[i] }
func (r nameRows) Kind(i int) rowKind            { return rowNormal }
func (r nameRows) CellStyle(i, col int) cellHint { return hintNone }

// The filter matches a method as the pane shows it, as Java writes it
// ("wait(J)V" reads "wait(long)"), and as the trace names it; a thread's
// row field by field (name, state, lock's class, method): ^ and $ are of
// a field.
func TestFilterMatchesMethodsAsShown(t *testing.T) {
	methods := nameRows{"java.lang.Object.wait(J)V", "java.lang.Thread.sleep(J)V", "Demo.main([Ljava/lang/String;)V", "Demo.fib"}
	threads := nameRows{"pool-2-thread-1\x00blocked\x00java.lang.Object\x00com.acme.Cache.get", "pool-2-thread-10\x00running\x00\x00com.acme.Cache.put"}
	for _, tc := range []struct {
		rows nameRows
		expr string
		want []int
	}{
		{methods, "long", []int{0, 1}},
		{methods, `\(J\)`, []int{0, 1}},
		{methods, `main\(Str`, []int{2}},
		{methods, "!long", []int{2, 3}},
		{methods, `wait\(long`, []int{0}},
		{methods, `^Demo\.fib$`, []int{3}},
		{methods, `\(long\)$`, []int{0, 1}},
		{threads, `^pool-2-thread-1$`, []int{0}},
		{threads, `^blocked$`, []int{0}},
		{threads, `thread-1`, []int{0, 1}},
		{threads, `Cache\.put$`, []int{1}},
	} {
		var tb table
		if err := tb.setFilter(tc.expr); err != nil {
			t.Fatal(err)
		}
		var got []int
		for i := range tc.rows {
			if tb.match(tc.rows, i) {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("/%s matches rows %v of %q, want %v", tc.expr, got, tc.rows, tc.want)
		}
	}
}
