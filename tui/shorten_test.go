package tui

import "testing"

func TestShorten(t *testing.T) {
	for _, c := range []struct {
		f    func(string, int) string
		in   string
		w    int
		want string
	}{
		{shortMethod, "org.apache.logging.log4j.core.appender.OutputStreamManager.write", 64, "org.apache.logging.log4j.core.appender.OutputStreamManager.write"},
		{shortMethod, "org.apache.logging.log4j.core.appender.OutputStreamManager.write", 40, "o.a.l.l.c.a.OutputStreamManager.write"},
		{shortMethod, "org.apache.logging.log4j.core.appender.OutputStreamManager.write", 50, "o.a.l.l.core.appender.OutputStreamManager.write"},
		{shortMethod, "org.apache.logging.log4j.core.appender.OutputStreamManager.write", 24, "…tputStreamManager.write"},
		{shortMethod, "com.acme.billing.Ledger.post(J)V", 40, "com.acme.billing.Ledger.post(long)"},
		{shortMethod, "com.acme.billing.Ledger.post(J)V", 22, "…Ledger.post(long)"},
		// Overloads: the parameters read as Java writes them and lose their
		// last types before the class loses its simple name.
		{shortMethod, "javax.swing.JTextField.<init>(Ljavax/swing/text/Document;Ljava/lang/String;I)V", 60, "javax.swing.JTextField.<init>(Document,String,int)"},
		{shortMethod, "javax.swing.JTextField.<init>(Ljavax/swing/text/Document;Ljava/lang/String;I)V", 40, "…JTextField.<init>(Document,String,int)"},
		{shortMethod, "javax.swing.JTextField.<init>(Ljavax/swing/text/Document;Ljava/lang/String;I)V", 30, "…JTextField.<init>(Document,…)"},
		{shortMethod, "javax.swing.JTextField.<init>(Ljavax/swing/text/Document;Ljava/lang/String;I)V", 24, "…ield.<init>(Document,…)"},
		// Two overloads in a narrow column stay two names: the class is cut
		// before the parameters go.
		{shortMethod, "CH.ifa.draw.standard.FigureAttributeConstant.getConstant(I)LCH/ifa/draw/standard/FigureAttributeConstant;", 33, "…tributeConstant.getConstant(int)"},
		{shortMethod, "CH.ifa.draw.standard.FigureAttributeConstant.getConstant(Ljava/lang/String;)LCH/ifa/draw/standard/FigureAttributeConstant;", 33, "…buteConstant.getConstant(String)"},
		{shortMethod, "javax.swing.JTextField.<init>(Ljavax/swing/text/Document;Ljava/lang/String;I)V", 16, "…extField.<init>"},
		{shortMethod, "CH.ifa.draw.standard.AbstractFigure.getAttribute(LCH/ifa/draw/framework/FigureAttributeConstant;)Ljava/lang/Object;", 60,
			"C.i.d.s.AbstractFigure.getAttribute(FigureAttributeConstant)"},
		{shortMethod, "CH.ifa.draw.standard.AbstractFigure.getAttribute(Ljava/lang/String;)Ljava/lang/Object;", 60,
			"CH.ifa.draw.standard.AbstractFigure.getAttribute(String)"},
		{shortMethod, "java.awt.Graphics.drawImage(Ljava/awt/Image;IILjava/awt/Color;Ljava/awt/image/ImageObserver;)Z", 40,
			"j.a.Graphics.drawImage(Image,int,int,…)"},
		{shortMethod, "java.awt.event.PaintEvent(java.awt.Component,int,java.awt.Rectangle)", 40, "j.awt.event.PaintEvent(Component,int,…)"},
		{shortMethod, "com.terrasoft.profilerj.tutorial.Example01.main(java.lang.String[])", 80, "com.terrasoft.profilerj.tutorial.Example01.main(String[])"},
		{shortMethod, "java.lang.ref.ReferenceQueue.remove:151", 24, "…ferenceQueue.remove:151"},
		// A Ruby label's parentheses are its name.
		{shortMethod, "block (2 levels) in Report#render", 40, "block (2 levels) in Report#render"},
		{shortClass, "java.util.concurrent.locks.ReentrantLock$NonfairSync", 40, "j.u.c.locks.ReentrantLock$NonfairSync"},
		{shortLock, "java.util.concurrent.locks.ReentrantLock$NonfairSync@1b6d3586", 30, "…rantLock$NonfairSync@1b6d3586"},
		{shortLock, "com.acme.billing.Account@7f3a01b0", 24, "c.a.b.Account@7f3a01b0"},
		// A group keeps the class's and the place's simple names, the place
		// in the lock's own class by its method alone.
		{shortLock, "org.h2.mvstore.tx.Transaction ×12 at org.h2.mvstore.tx.Transaction.waitForThisToEnd:745", 60, "o.h.m.t.Transaction ×12 at Transaction.waitForThisToEnd:745"},
		{shortLock, "com.acme.shop.cache.InventoryCache ×1 at com.acme.shop.cache.InventoryCache.get:64", 31, "InventoryCache ×1 at get:64"},
		{shortLock, "java.util.Hashtable ×3 at com.acme.shop.web.SessionRegistry.touch:37", 40, "Hashtable ×3 at SessionRegistry.touch:37"},
		{shortLock, "java.util.Hashtable ×3 at com.acme.shop.web.SessionRegistry.touch:37", 31, "Hashtable ×3 at …istry.touch:37"},
		{middle, "http-nio-8080-exec-12", 15, "http-…0-exec-12"},
		{middle, "ForkJoinPool.commonPool-worker-3", 20, "ForkJoi…ool-worker-3"},
	} {
		got := c.f(c.in, c.w)
		if got != c.want || widthOf(got) > c.w {
			t.Errorf("%q in %d: %q (%d cells), want %q", c.in, c.w, got, widthOf(got), c.want)
		}
	}
}

// What tells series apart is at the end of their names: a group's size
// and how it combines, an MBean's key values.
func TestShortSeries(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"Usage.used (java.lang:name=CodeHeap 'non-nmethods',type=MemoryPool)", 80, "Usage.used (java.lang:name=CodeHeap 'non-nmethods',type=MemoryPool)"},
		{"Usage.used (java.lang:name=CodeHeap 'non-nmethods',type=MemoryPool)", 54, "Usage.used (CodeHeap 'non-nmethods',MemoryPool)"},
		{"Usage.used (java.lang:type=MemoryPool,name=CodeHeap 'profiled nmethods')", 40, "Usage.used (CodeHeap 'profiled nmethod…)"},
		{"Usage.used (java.lang:type=MemoryPool,name=Metaspace)", 30, "Usage.used (Metaspace,Memory…)"},
		{"currentThreadsBusy (Catalina:type=ThreadPool,name=\"http-nio-8080\")", 36, "curr…adsBusy (\"http-nio-8080\",Thre…)"},
		// Words are cut whole, the first and the last kept; then the last
		// stays whole; then the letters are cut in the middle.
		{"Tasks in Non-blocking Queue ×4 Σ", 20, "Tasks … Queue ×4 Σ"},
		{"Tasks Waiting for Dependencies", 27, "Tasks … for Dependencies"},
		{"Tasks Waiting for Dependencies", 16, "Tasks…pendencies"},
		{"Non-heap used (Metaspace)", 23, "Non-h… used (Metaspace)"},
		{"Heap used ×3 Σ", 12, "He…used ×3 Σ"},
		{"Process CPU load", 10, "Proc… load"},
	} {
		got := shortSeries(c.in, c.w)
		if got != c.want || widthOf(got) > c.w {
			t.Errorf("%q in %d: %q (%d cells), want %q", c.in, c.w, got, widthOf(got), c.want)
		}
	}
}

func TestShortProbe(t *testing.T) {
	for _, tc := range []struct {
		s    string
		w    int
		want string
	}{
		{"jfr:bank.Transfer#state", 30, "jfr:bank.Transfer#state"},
		{"jfr:bank.Transfer#state", 20, "jfr:b.Transfer#state"},
		{"jfr:com.acme.bank.Transfer#state", 19, "jfr:Transfer#state"},
		{"jfr:bank.Transfer", 14, "jfr:b.Transfer"},
		{"jfr:com.acme.bank.VeryLongEventName#state", 14, "jfr:V…me#state"},
		{"no kind at all, long", 10, "no …, long"},
	} {
		if got := shortProbe(tc.s, tc.w); got != tc.want || widthOf(got) > tc.w {
			t.Errorf("shortProbe(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
	}
}
