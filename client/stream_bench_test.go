package client

import (
	"bytes"
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/internal/endless"
	"github.com/proftop/proftop/protocol"
	"github.com/proftop/proftop/simulator"
)

// simulatedFrames encodes events of the simulated service in binary and
// cuts them into data frames as the simulator does (every 16,000 bytes,
// inside messages): the stream header and the first events in head, the
// rest in block.
func simulatedFrames(tb testing.TB, events int) (head, block []byte) {
	tb.Helper()
	w := simulator.NewWorld(simulator.Config{Seed: 2, Start: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)})
	var raw bytes.Buffer
	enc := decode.NewEncoder(&raw, decode.EncoderOptions{})
	for range events / 2 {
		enc.Encode(w.Next()) // the definitions and warm-up: in head
	}
	enc.Flush()
	headLen := raw.Len()
	for range events / 2 {
		enc.Encode(w.Next())
	}
	enc.Flush()
	frame := func(b []byte) []byte {
		var out bytes.Buffer
		fw := protocol.NewFrameWriter(&out, 0)
		for len(b) > 0 {
			n := min(len(b), 16000)
			if err := fw.WriteFrame(true, b[:n]); err != nil {
				tb.Fatal(err)
			}
			b = b[n:]
		}
		return out.Bytes()
	}
	return frame(raw.Bytes()[:headLen]), frame(raw.Bytes()[headLen:])
}

// BenchmarkStreamSimulated is the client's side of BenchmarkEndToEnd
// (package main) without the socket and without the simulator sharing the
// machine: data frames of the simulated service read through the frame
// reader, decoded and handed over in batches to a consumer that only
// counts them. Its CPU per event is what the end-to-end figure holds
// besides the read system calls.
func BenchmarkStreamSimulated(b *testing.B) {
	head, block := simulatedFrames(b, 200_000)
	s := NewSession(Config{Host: "127.0.0.1", Port: 1})
	c := &control{fr: protocol.NewBufferedFrameReader(endless.Reader(head, block), 0, readBufferSize)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.stream(ctx, c, decode.FormatBinary, nil)
	}()
	events := 0
	for events < 200_000 {
		bt := <-s.Batches()
		events += bt.Len()
		s.Recycle(bt)
	}
	b.ReportAllocs()
	startCPU := processCPUTime()
	b.ResetTimer()
	events = 0
	for events < b.N {
		bt := <-s.Batches()
		events += bt.Len()
		s.Recycle(bt)
	}
	b.StopTimer()
	cpu := processCPUTime() - startCPU
	cancel()
	for {
		select {
		case bt := <-s.Batches():
			s.Recycle(bt)
			continue
		case <-done:
		}
		break
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(events), "cpu-ns/event")
}

// processCPUTime is the CPU this process has used, user and system.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
