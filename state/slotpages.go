package state

// slotPages is a table indexed by slot that grows without moving what it
// holds: its entries are kept in pages of slotPageSize. A slice would be
// copied into one a quarter larger again and again while a wide
// picture's 100,000 methods are defined (the old and the new array both
// live meanwhile, a quarter of it unused after), where pages are made
// once each and the last one only is partly empty. The first page grows
// as a slice does, so that a small table stays small.
type slotPages[T any] struct {
	pages [][]T
	n     int
}

const (
	slotPageBits = 12
	slotPageSize = 1 << slotPageBits
)

// len is the number of entries.
func (p *slotPages[T]) len() int { return p.n }

// at is the entry of a slot, to read or change in place.
func (p *slotPages[T]) at(slot int32) *T {
	return &p.pages[slot>>slotPageBits][slot&(slotPageSize-1)]
}

// add appends an entry.
func (p *slotPages[T]) add(v T) {
	page := p.n >> slotPageBits
	if page == len(p.pages) {
		capacity := 0 // the first page grows as it fills
		if page > 0 {
			capacity = slotPageSize
		}
		p.pages = append(p.pages, make([]T, 0, capacity))
	}
	p.pages[page] = append(p.pages[page], v)
	p.n++
}

// reset empties the table and keeps its pages, to be filled again: a
// table filled afresh each second (a second's figures) takes no memory
// anew.
func (p *slotPages[T]) reset() {
	for i := range p.pages {
		p.pages[i] = p.pages[i][:0]
	}
	p.n = 0
}
