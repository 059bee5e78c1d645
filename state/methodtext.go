package state

// methodText is a method's names as slices of one string: for a defined
// method its key in byKey (class.method, signature, ":" and line; see
// methodKey), for a stack frame's the frame as the stack names it. One
// string and three offsets instead of three strings: a wide picture holds
// 100,000 of them, and the name and signature the decoder handed over
// need not be kept beside the key that holds them already.
type methodText struct {
	text string
	// name is text[nameAt:sigAt], the signature text[sigAt:sigEnd].
	nameAt, sigAt, sigEnd int32
	frame                 bool // text is a frame's name, not a key of byKey
}

// keyText is the text of a defined method whose key starts with its class
// (classLen bytes) and a dot, then its name and signature.
func keyText(key string, classLen, nameLen, sigLen int) methodText {
	nameAt := int32(classLen + 1)
	sigAt := nameAt + int32(nameLen)
	return methodText{text: key, nameAt: nameAt, sigAt: sigAt, sigEnd: sigAt + int32(sigLen)}
}

// provisionalText is the text of a method known by its id alone: a key
// and no name or signature.
func provisionalText(key string) methodText { return methodText{text: key} }

// frameText is the text of a stack frame's method: its display name is
// the frame's first displayLen bytes, the signature the rest, and its name
// what follows the display name's last dot (none without one).
func frameText(frame string, displayLen, nameAt int) methodText {
	return methodText{text: frame, nameAt: int32(nameAt), sigAt: int32(displayLen), sigEnd: int32(len(frame)), frame: true}
}

// key is the method's key in byKey; "" for a frame's.
func (t *methodText) key() string {
	if t.frame {
		return ""
	}
	return t.text
}

func (t *methodText) name() string { return t.text[t.nameAt:t.sigAt] }

// display is a defined method's display name (class.method): its key's
// first bytes.
func (t *methodText) display() string { return t.text[:t.sigAt] }
func (t *methodText) sig() string     { return t.text[t.sigAt:t.sigEnd] }
