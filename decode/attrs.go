package decode

import (
	"strconv"
	"unsafe"
)

// isDefault reports whether a field holds its default value, which the XML
// form may omit.
func isDefault(f *field, p unsafe.Pointer) bool {
	switch f.typ {
	case fieldLong, fieldTicks:
		return *fieldAt[int64](p, f.off) == 0
	case fieldDouble:
		return *fieldAt[uint64](p, f.off) == 0
	case fieldInt:
		return *fieldAt[int32](p, f.off) == 0
	case fieldByte:
		return *fieldAt[byte](p, f.off) == 0
	case fieldString:
		return *fieldAt[string](p, f.off) == ""
	case fieldStack:
		return len(fieldAt[Stack](p, f.off).Methods) == 0
	}
	return false
}

// appendNumber renders a numeric field as text: integers in decimal,
// ticks as decimal seconds when asSeconds, doubles in shortest form.
func appendNumber(dst []byte, f *field, p unsafe.Pointer, c Clock, asSeconds bool) []byte {
	switch f.typ {
	case fieldLong:
		return strconv.AppendInt(dst, *fieldAt[int64](p, f.off), 10)
	case fieldTicks:
		t := *fieldAt[Ticks](p, f.off)
		if asSeconds {
			return c.appendSeconds(dst, t)
		}
		return strconv.AppendInt(dst, int64(t), 10)
	case fieldInt:
		return strconv.AppendInt(dst, int64(*fieldAt[int32](p, f.off)), 10)
	case fieldByte:
		return strconv.AppendUint(dst, uint64(*fieldAt[byte](p, f.off)), 10)
	case fieldDouble:
		return strconv.AppendFloat(dst, *fieldAt[float64](p, f.off), 'g', -1, 64)
	}
	return dst
}
