package simulator

import "github.com/proftop/proftop/decode"

// classID returns the id of a class, defining it on first use.
func (w *World) classID(class string) int64 {
	id, ok := w.classIDs[class]
	if !ok {
		id = int64(len(w.classIDs) + 1)
		w.classIDs[class] = id
	}
	if !w.classDefined[class] {
		w.classDefined[class] = true
		cd := w.pool.classDef.next()
		src := ""
		for i := range catalog {
			if catalog[i].class == class {
				src = catalog[i].source
				break
			}
		}
		*cd = decode.ClassDef{Time: w.now, ClassID: id, SourceName: src, Name: class, ObjIDRef: 0x7d00_0000 + id*0x20}
		w.emit(cd)
	}
	return id
}

// define sends classDef and methodDef before a method's first use.
func (w *World) define(m int) {
	if w.methodDefined[m] {
		return
	}
	w.methodDefined[m] = true
	meth := &catalog[m]
	cid := w.classID(meth.class)
	w.methodClass[m] = cid
	md := w.pool.methodDef.next()
	*md = decode.MethodDef{Name: meth.name, Signature: "()V", StartLineNumber: meth.start, EndLineNumber: meth.start + meth.lines,
		ClassIDRef: cid, MethodID: int64(m + 1)}
	w.emit(md)
}
