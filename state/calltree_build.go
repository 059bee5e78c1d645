package state

import (
	"slices"
	"sort"
)

// CallTree is the tree of the stacks of a span, merged over the threads
// kept: the root stands for them all, each node for a method called along
// one path. Self is what ended at a node (ns of sampled CPU time or of
// calls' self time, when Weighted; else only counts are known), Total what
// ended at it or below.
type CallTree struct {
	Nodes []CallNode `json:"nodes"` // Nodes[0] is the root; parents come before their children
	// Weighted says Self and Total are times (ns); else SelfN and TotalN are
	// all there is.
	Weighted bool `json:"weighted"`
	// Threads are the threads with stacks in the span (those the filter
	// kept), heaviest first.
	Threads []TreeThread `json:"threads"`
	// AllThreads is how many threads had stacks before the filter.
	AllThreads int `json:"allThreads"`
	// Pruned counts the nodes left out, lightest first, to keep the tree
	// within the bound of a built tree; CutN the stacks (samples or calls)
	// cut at the bound on the nodes kept, since the start.
	Pruned int   `json:"pruned,omitempty"`
	CutN   int64 `json:"cut,omitempty"`
	Limit  int   `json:"nodeLimit,omitempty"`
}

// CallNode is one node of a call tree.
type CallNode struct {
	Parent int32   `json:"parent"` // -1 for the root
	Name   string  `json:"name"`
	Self   int64   `json:"self"`
	Total  int64   `json:"total"`
	SelfN  int64   `json:"selfCount"`
	TotalN int64   `json:"totalCount"`
	Depth  int32   `json:"depth"`
	Kids   []int32 `json:"-"` // heaviest first
}

// Value is the measure a tree is drawn by: the weight when it has one,
// else the count.
func (t *CallTree) Value(n *CallNode) (self, total int64) {
	if t.Weighted {
		return n.Self, n.Total
	}
	return n.SelfN, n.TotalN
}

// Percent is a value's share of the root's total.
func (t *CallTree) Percent(v int64) float64 {
	if len(t.Nodes) == 0 {
		return 0
	}
	_, root := t.Value(&t.Nodes[0])
	if root <= 0 {
		return 0
	}
	return 100 * float64(v) / float64(root)
}

// Path is a node's methods from the root's first child down to it.
func (t *CallTree) Path(i int32) []string {
	var out []string
	for ; i > 0; i = t.Nodes[i].Parent {
		out = append(out, t.Nodes[i].Name)
	}
	slices.Reverse(out)
	return out
}

// maxBuiltNodes bounds a built tree: the lightest nodes beyond go.
const maxBuiltNodes = 50_000

// BuildCallTree folds weights (several lists may name one node: they
// add up) into the call tree of the threads keep accepts (nil: all).
func BuildCallTree(shape TreeShape, keep func(TreeThread) bool, lists ...[]NodeFig) *CallTree {
	merged := make([]treeFig, len(shape.mnodes)+1) // [0] is the root
	perRoot := map[int32]*treeFig{}
	kept := map[int32]bool{}
	accept := func(root int32) bool {
		if v, ok := kept[root]; ok {
			return v
		}
		th := shape.threads[root]
		th.Root = root
		v := keep == nil || keep(th)
		kept[root] = v
		return v
	}
	for _, list := range lists {
		for _, f := range list {
			if f.Node < 0 || int(f.Node) >= len(shape.nodes) {
				continue // a node made after the shape was taken
			}
			n := &shape.nodes[f.Node]
			fig := treeFig{f.W, f.N}
			if t := perRoot[n.root]; t != nil {
				t.add(fig)
			} else {
				perRoot[n.root] = &treeFig{f.W, f.N}
			}
			if !accept(n.root) {
				continue
			}
			merged[n.merged+1].add(fig)
		}
	}
	out := &CallTree{Weighted: shape.weighted, CutN: shape.cut.n, Limit: shape.limit, AllThreads: len(perRoot)}
	for root, f := range perRoot {
		if !kept[root] || f.zero() {
			continue
		}
		th := shape.threads[root]
		th.Root, th.Total, th.Count = root, f.w, f.n
		if !shape.weighted {
			th.Total = f.n
		}
		out.Threads = append(out.Threads, th)
	}
	sort.Slice(out.Threads, func(i, j int) bool {
		a, b := out.Threads[i], out.Threads[j]
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return a.ID < b.ID
	})
	// Totals: children come after their parents, so one pass backwards.
	totals := slices.Clone(merged)
	for i := len(shape.mnodes) - 1; i >= 0; i-- {
		totals[shape.mnodes[i].parent+1].add(totals[i+1])
	}
	value := func(f treeFig) int64 {
		if shape.weighted {
			return f.w
		}
		return f.n
	}
	// Keep the heaviest nodes: a parent weighs at least as much as its
	// child, so a threshold on the total keeps every kept node's path.
	// Under the bound every node is kept, those sampled without CPU time
	// too (a thread sampled in native code, or the agent's samples of an
	// interval its polls measured no CPU in): the root counts their
	// samples, so its children must show them.
	threshold := int64(0)
	live := 0
	for i := 1; i < len(totals); i++ {
		if !totals[i].zero() {
			live++
		}
	}
	if live > maxBuiltNodes {
		vals := make([]int64, 0, live)
		for i := 1; i < len(totals); i++ {
			if !totals[i].zero() {
				vals = append(vals, value(totals[i]))
			}
		}
		slices.Sort(vals)
		threshold = max(vals[len(vals)-maxBuiltNodes], 1)
	}
	index := make([]int32, len(totals)) // merged+1 -> node in out, -1: left out
	out.Nodes = make([]CallNode, 1, min(live, maxBuiltNodes)+1)
	out.Nodes[0] = CallNode{Parent: -1, Name: "all threads", Self: merged[0].w, SelfN: merged[0].n, Total: totals[0].w, TotalN: totals[0].n}
	for i := 1; i < len(totals); i++ {
		index[i] = -1
		if totals[i].zero() {
			continue
		}
		if value(totals[i]) < threshold {
			out.Pruned++
			continue
		}
		mn := &shape.mnodes[i-1]
		p := index[mn.parent+1]
		if p < 0 {
			out.Pruned++
			continue
		}
		name := ""
		if int(mn.slot) < len(shape.names) {
			name = shape.names[mn.slot]
		}
		index[i] = int32(len(out.Nodes))
		out.Nodes = append(out.Nodes, CallNode{Parent: p, Name: name, Self: merged[i].w, SelfN: merged[i].n,
			Total: totals[i].w, TotalN: totals[i].n, Depth: out.Nodes[p].Depth + 1})
	}
	if len(out.Threads) == 1 {
		out.Nodes[0].Name = out.Threads[0].Name
	} else if keep != nil {
		out.Nodes[0].Name = "threads kept by the filter"
	}
	linkKids(out)
	return out
}

// linkKids lists each node's children, heaviest first, in one array.
func linkKids(t *CallTree) {
	counts := make([]int32, len(t.Nodes))
	for i := 1; i < len(t.Nodes); i++ {
		counts[t.Nodes[i].Parent]++
	}
	all := make([]int32, 0, max(len(t.Nodes)-1, 0))
	start := make([]int32, len(t.Nodes))
	for i := range t.Nodes {
		start[i] = int32(len(all))
		all = all[:len(all)+int(counts[i])]
	}
	fill := slices.Clone(start)
	for i := 1; i < len(t.Nodes); i++ {
		p := t.Nodes[i].Parent
		all[fill[p]] = int32(i)
		fill[p]++
	}
	for i := range t.Nodes {
		kids := all[start[i] : start[i]+counts[i] : start[i]+counts[i]]
		sort.Slice(kids, func(a, b int) bool {
			_, ta := t.Value(&t.Nodes[kids[a]])
			_, tb := t.Value(&t.Nodes[kids[b]])
			if ta != tb {
				return ta > tb
			}
			return t.Nodes[kids[a]].Name < t.Nodes[kids[b]].Name
		})
		t.Nodes[i].Kids = kids
	}
}
