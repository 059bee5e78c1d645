package javaname

import "testing"

func TestParams(t *testing.T) {
	for in, want := range map[string]string{
		"(Ljava/lang/String;[I[[J)V": "(String,int[],long[][])",
		"()V":                        "()",
		"(Ljava/util/Map$Entry;)Ljava/lang/Object;": "(Map$Entry)",
		"(java.lang.Object,int)":                    "(Object,int)",
		"(java.lang.String[])":                      "(String[])",
		"()":                                        "()",
		"(2 levels)":                                "(2 levels)", // not a list of types
		"(Lfoo)V":                                   "(Lfoo)V",    // a descriptor cut short
		"":                                          "",           // none at all
		"int":                                       "int",
		"(int":                                      "(int",
	} {
		if got := Params(in); got != want {
			t.Errorf("%q reads %q, want %q", in, got, want)
		}
	}
}

func TestMethod(t *testing.T) {
	for in, want := range map[string]string{
		"java.lang.Object.wait(J)V":                                    "java.lang.Object.wait(long)",
		"com.acme.Ledger.post":                                         "com.acme.Ledger.post",
		"block (2 levels) in Ledger#post":                              "block (2 levels) in Ledger#post", // a Ruby label
		"spec.benchmarks._209_db.Database.<init>(Ljava/lang/String;)V": "spec.benchmarks._209_db.Database.<init>(String)",
	} {
		if got := Method(in); got != want {
			t.Errorf("%q reads %q, want %q", in, got, want)
		}
	}
}

func TestSpecial(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"-init-", "<init>"},
		{"-clinit-", "<clinit>"},
		{"<init>", "<init>"},
		{"init", "init"},
		{"-init-x", "-init-x"},
		{"", ""},
	} {
		if got := Special(tc.in); got != tc.want {
			t.Errorf("Special(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSpecialFrame(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"java.util.ArrayList.-init-", "java.util.ArrayList.<init>"},
		{"java.util.ArrayList.-init-(Ljava/util/Collection;)V", "java.util.ArrayList.<init>(Ljava/util/Collection;)V"},
		{"a.B.-clinit-", "a.B.<clinit>"},
		{"-init-", "<init>"},
		{"a.B.init", "a.B.init"},
		{"a.B.get(I)V", "a.B.get(I)V"},
		{"", ""},
	} {
		if got := SpecialFrame(tc.in); got != tc.want {
			t.Errorf("SpecialFrame(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
