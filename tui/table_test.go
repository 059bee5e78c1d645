package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
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

// textRows is a table of names, a row a slice of cells.
type textRows [][]string

func (r textRows) Len() int                      { return len(r) }
func (r textRows) ID(i int) int64                { return int64(i) }
func (r textRows) Cell(i, col int) string        { return r[i][col] }
func (r textRows) Num(i, col int) int64          { return int64(i) }
func (r textRows) Text(i, col int) string        { return r[i][col] }
func (r textRows) Name(i int) string             { return r[i][0] }
func (r textRows) Kind(i int) rowKind            { return rowNormal }
func (r textRows) CellStyle(i, col int) cellHint { return hintNone }

// Room is shared by what the cells need: a fixed column wider than its
// names gives the rest to a column that cuts them, spare room widens a
// cut column before the flexible one takes more than its names need, and
// when all cannot be whole the widest is the one cut.
func TestColumnsShareTheRoomByWhatTheirCellsNeed(t *testing.T) {
	cols := []column{
		{title: "ID", width: 6, grow: 10, right: true},
		{title: "ERROR", width: 10, grow: 40, text: true},
		{title: "NAME", min: 8, text: true},
	}
	rows := textRows{
		{"7", "connection refused by 10.0.0.7", "OrderService.find"},
		{"12", "no such host", "Cache.get"},
	}
	for _, tc := range []struct {
		width int
		want  []int
	}{
		// ID keeps its usual 6; ERROR (30) and NAME (17) are whole; NAME takes the rest.
		{80, []int{6, 30, 42}},
		// Not all whole: ID gives up what "12" does not need, NAME is whole, ERROR cut.
		{44, []int{2, 23, 17}},
		// Narrower: the two cut evenly.
		{30, []int{2, 13, 13}},
	} {
		tb := newTable(cols, 2)
		tb.layout(rows, 5)
		if got := tb.widths(tc.width, rows); !slices.Equal(got, tc.want) {
			t.Errorf("%d cells: widths %v, want %v", tc.width, got, tc.want)
		}
	}
}

// A column keeps the width its cells needed for a while after the long
// name has gone off screen, so that the columns after it do not shift at
// each refresh; then it gives it back.
func TestColumnWidthsHoldAWhile(t *testing.T) {
	cols := []column{{title: "NAME", width: 10, grow: 30, text: true}, {title: "METHOD", min: 10, text: true}}
	long := textRows{{"http-nio-8080-exec-12", "Cache.get"}}
	short := textRows{{"main", "Cache.get"}}
	tb := newTable(cols, 1)
	tb.render(long, 60, 3, &Styles{}, false)
	if w := tb.widths(60, long); w[0] != 21 {
		t.Fatalf("NAME %d cells for a name of 21", w[0])
	}
	tb.render(short, 60, 3, &Styles{}, false)
	if w := tb.widths(60, short); w[0] != 21 {
		t.Errorf("NAME narrowed at once to %d", w[0])
	}
	tb.needMet[0] = tb.needMet[0].Add(-needHold - time.Second)
	tb.render(short, 60, 3, &Styles{}, false)
	if w := tb.widths(60, short); w[0] != 10 {
		t.Errorf("NAME still %d cells once the long name is long gone, want its usual 10", w[0])
	}
}

// On a wide terminal the threads' ID keeps its usual width: the room goes
// to the names and the method (the ID was padded to 16 cells).
func TestWideThreadsDoNotPadTheID(t *testing.T) {
	m, _, _ := newTestModel(t, 200, 30)
	for _, l := range strings.Split(ansi.Strip(m.render()), "\n") {
		if i := strings.Index(l, "ID NAME"); i >= 0 {
			if pad := strings.Index(l, "ID") - len("│"); pad > 4 {
				t.Fatalf("the ID column is %d cells wide for ids of two digits:\n%s", pad+2, l)
			}
			return
		}
	}
	t.Fatal("no threads table on screen")
}

// At 80 columns the probe's name keeps its event ("jfr:Ta…tate#state"
// said neither) while GROUP, wider, gives it cells.
func TestNarrowProbesKeepTheEventName(t *testing.T) {
	m, agg := longRunModel(t, 80, 24, false)
	press(m, "8")
	deliver(m, agg)
	screen := ansi.Strip(m.View().Content)
	if !strings.Contains(screen, "TaskState#state") {
		t.Fatalf("the probe's event is cut:\n%s", screen)
	}
}

// Batch text has room for a series' whole name beside its figures: the
// sparkline, as long as the window, does not take it ("Non-… committed
// (CodeHeap 'non-nmethods')" at 132 columns).
func TestBatchTelemetryKeepsSeriesNames(t *testing.T) {
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	var series []state.Series
	names := []string{"Heap used (G1 Eden Space)", "Non-heap committed (CodeHeap 'non-nmethods')",
		"Non-heap used (CodeHeap 'non-profiled nmethods')", "Live threads"}
	for _, name := range names {
		var points []state.Point
		for i := range 300 {
			points = append(points, state.Point{At: at.Add(time.Duration(i) * time.Second), Value: int64(1000 + i%7)})
		}
		series = append(series, state.Series{Name: name, Unit: "bytes", Divisor: 1, Points: points, Min: 1000, Max: 1006})
	}
	text := RenderText(&state.Snapshot{Telemetry: series, TelemetryWindow: 5 * time.Minute}, client.Status{}, 132, 0, false)
	for _, name := range names {
		if !strings.Contains(text, name+" ") {
			t.Errorf("%q is cut:\n%s", name, text)
		}
	}
}

// An ended thread's %CPU reads –, as one not known: the rate the source
// last measured stays in the snapshot once the JVM exits ("busy ended
// 7.15s 46%"), though the thread runs no more.
func TestEndedThreadHasNoCPURate(t *testing.T) {
	for _, tc := range []struct {
		st   state.ThreadState
		cell string
		key  int64
	}{
		{state.ThreadRunning, "46%", 46_000},
		{state.ThreadEnded, "–", -1},
	} {
		r := threadRows{s: []state.Thread{{ID: 9, Name: "busy", State: tc.st, CPU: 7150 * time.Millisecond, CPUKnown: true, CPUPercent: 46}}}
		if cell, key := r.Cell(0, threadColCPUPercent), r.Num(0, threadColCPUPercent); cell != tc.cell || key != tc.key {
			t.Errorf("%v: %%CPU %q, sorted as %d; want %q, %d", tc.st, cell, key, tc.cell, tc.key)
		}
	}
}

// A bad filter is quoted as typed: the flag that ignores case is
// proftop's, not the user's ("(?i)blocked|parked(").
func TestFilterErrorQuotesThePatternTyped(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"blocked|parked(", "missing closing ): `blocked|parked(`"},
		{"!blocked|parked(", "missing closing ): `blocked|parked(`"},
		{"Blocked|(", "missing closing ): `Blocked|(`"},
		{"a**", "invalid nested repetition operator: `**`"},
	} {
		var tb table
		err := tb.setFilter(tc.expr)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %q", tc.expr, err, tc.want)
		}
	}
	if err := new(table).setFilter("blocked|parked"); err != nil {
		t.Fatal(err)
	}
}
