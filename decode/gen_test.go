package decode

import (
	"fmt"
	"math/rand/v2"
)

// populated returns an event of kind k with every attribute set to a value
// distinct from its default, derived from seed.
func populated(k Kind, seed int64) Event {
	sp := specOf(k)
	ev := sp.fresh()
	p := sp.base(ev)
	for i := range sp.fields {
		f := &sp.fields[i]
		v := seed*100 + int64(i) + 1
		switch f.typ {
		case fieldLong:
			*fieldAt[int64](p, f.off) = v * -7919
		case fieldTicks:
			*fieldAt[Ticks](p, f.off) = Ticks(1_174_313_536_310_316_085 + v)
		case fieldInt:
			*fieldAt[int32](p, f.off) = int32(v * 31)
		case fieldByte:
			*fieldAt[byte](p, f.off) = byte(v)
		case fieldDouble:
			*fieldAt[float64](p, f.off) = float64(v) / 3
		case fieldString:
			*fieldAt[string](p, f.off) = fmt.Sprintf("%s-%d <&\"'> Ж線", f.name, v)
		case fieldStack:
			st := fieldAt[Stack](p, f.off)
			for j := range 3 {
				st.Methods = append(st.Methods, fmt.Sprintf("com.acme.Class%d.method%d", v, j))
				st.Lines = append(st.Lines, int64(j*10)-1)
			}
		}
	}
	if s, ok := ev.(*TelemetrySeries); ok {
		s.Unit = Units()[int(seed)%len(Units())] // the convention takes known units only
	}
	return ev
}

// minimal returns the smallest event of kind k its codecs accept: the zero
// event, but for the kinds of proftop's custom convention, which name
// what they are about.
func minimal(k Kind) Event {
	switch k {
	case KindTelemetrySeries:
		return &TelemetrySeries{Name: "s", Unit: UnitPlain, Divisor: 1}
	case KindTelemetryProblem:
		return &TelemetryProblem{Spec: "jmx:a:b"}
	case KindProbe:
		return &Probe{Name: "jfr:a"}
	}
	return specOf(k).fresh()
}

// wireKinds lists the kinds that have a binary message.
func wireKinds() []Kind {
	var out []Kind
	for _, k := range Kinds() {
		if k.WireID() != 0 {
			out = append(out, k)
		}
	}
	return out
}

var (
	packages = []string{"com.acme.shop", "org.example.cache", "io.netty.channel", "java.util.concurrent", "com.acme.billing"}
	classes  = []string{"OrderService", "InventoryCache", "PaymentGateway", "ReentrantLock", "EventLoop", "Repository"}
	methods  = []string{"get", "put", "handle", "lock", "await", "process", "run", "submit", "lookup"}
)

// mixedEvents is a realistic trace: definitions first, then method
// entry/exit pairs, monitor events with 5 to 20-frame stacks, GC cycles and
// thread churn, all repeating names the way a live JVM does.
func mixedEvents(n int, seed uint64) []Event {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []Event
	add := func(e Event) { out = append(out, e) }
	add(&Node{NodeID: "node-1", Hostname: "prod-1", IPAddress: "10.0.0.1", Time: 1})
	add(&AgentCreate{AgentID: "agent-1", AgentName: "proftop simulated agent", AgentType: "Profiler", Version: "1.0"})
	const threads, nMethods = 40, 200
	for i := range nMethods {
		cls := fmt.Sprintf("%s.%s", packages[i%len(packages)], classes[i%len(classes)])
		if i%len(classes) == 0 {
			add(&ClassDef{ClassID: int64(i/len(classes) + 1), Name: cls, SourceName: classes[i%len(classes)] + ".java"})
		}
		add(&MethodDef{Name: methods[i%len(methods)], Signature: "()V", ClassIDRef: int64(i/len(classes) + 1),
			MethodID: int64(i + 1), StartLineNumber: int64(10 + i), EndLineNumber: int64(30 + i)})
	}
	for t := range threads {
		add(&ThreadStart{ThreadID: int64(t + 1), ThreadName: fmt.Sprintf("worker-%d", t), GroupName: "main", Time: Ticks(t)})
	}
	frames := make([]string, 64)
	for i := range frames {
		frames[i] = fmt.Sprintf("%s.%s.%s", packages[i%len(packages)], classes[i%len(classes)], methods[i%len(methods)])
	}
	stack := func() Stack {
		d := 5 + r.IntN(16)
		st := Stack{}
		off := r.IntN(len(frames) - d)
		for j := range d {
			st.Methods = append(st.Methods, frames[off+j])
			st.Lines = append(st.Lines, int64(20+r.IntN(400)))
		}
		return st
	}
	now := Ticks(1_700_000_000_000_000_000)
	ticket := int32(0)
	for len(out) < n {
		now += Ticks(r.IntN(5000))
		th := int64(1 + r.IntN(threads))
		switch x := r.IntN(100); {
		case x < 60:
			ticket++
			m := int64(1 + r.IntN(nMethods))
			add(&MethodEntry{ThreadIDRef: th, Time: now, MethodIDRef: m, Ticket: ticket, ClassIDRef: m % 30, StackDepth: int64(r.IntN(30))})
			add(&MethodExit{ThreadIDRef: th, Time: now + Ticks(r.IntN(100000)), Ticket: ticket, MethodIDRef: m, ThreadCPUTime: Ticks(r.IntN(1e6))})
		case x < 85:
			obj := int64(0x7f00 + r.IntN(5))
			owner := int64(1 + r.IntN(threads))
			switch r.IntN(4) {
			case 0:
				add(&MonContendedEnter{ThreadIDRef: th, Time: now, ObjIDRef: obj, ThreadOwner: owner, Stack: stack()})
			case 1:
				add(&MonContendedEntered{ThreadIDRef: th, Time: now, ObjIDRef: obj, Stack: stack()})
			case 2:
				add(&MonWait{MonitorWait{ThreadIDRef: th, Time: now, ObjIDRef: obj, Timeout: int64(r.IntN(1000)), Stack: stack()}})
			default:
				w := &MonWaited{MonitorWait{ThreadIDRef: th, Time: now, ObjIDRef: obj, Timeout: int64(r.IntN(1000)), Stack: stack()}}
				if obj%2 == 0 {
					w.Stack = Stack{} // as the JVM agent ends a wait: its stack came with the begin
				}
				add(w)
			}
		case x < 92:
			add(&AgMethodEntry{ThreadIDRef: th, MethodIDRef: int64(1 + r.IntN(nMethods)), BaseTime: Ticks(r.IntN(1e7)),
				MinTime: 10, MaxTime: Ticks(r.IntN(1e6)), BaseCPUTime: Ticks(r.IntN(1e7)), NumCalls: int64(r.IntN(1000))})
		case x < 96:
			add(&GCStart{ThreadMoment{Time: now}})
			add(&ObjFree{Time: now + 1, ObjIDRef: int64(r.IntN(1 << 30)), ObjAge: int64(r.IntN(10))})
			add(&GCFinish{Time: now + Ticks(r.IntN(5e6)), TotalObjSpace: 512 << 20, UsedObjSpace: int64(r.IntN(512 << 20)), UsedObjects: int64(r.IntN(1e6))})
		case x < 98:
			id := int64(threads + 1 + r.IntN(1000))
			add(&ThreadStart{ThreadID: id, ThreadName: fmt.Sprintf("pool-1-thread-%d", id), GroupName: "main", ParentName: "system", Time: now})
		default:
			add(&ThreadEnd{ThreadMoment{ThreadIDRef: int64(threads + 1 + r.IntN(1000)), Time: now}})
		}
	}
	return out[:n]
}
