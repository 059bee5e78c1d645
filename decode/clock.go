package decode

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// DefaultFrequency is the tick rate of a stream that sends no frequency
// message: timestamps are nanoseconds since the Unix epoch.
const DefaultFrequency = 1_000_000_000

// Clock converts a stream's ticks to time with integer arithmetic only
// (float64 cannot hold a nanosecond timestamp exactly).
type Clock struct {
	Frequency int64 // ticks per second; 0 means DefaultFrequency
}

func (c Clock) freq() uint64 {
	if c.Frequency <= 0 {
		return DefaultFrequency
	}
	return uint64(c.Frequency)
}

// split returns whole seconds and the remaining ticks (0 <= rem < freq),
// rounding towards negative infinity.
func (c Clock) split(t Ticks) (sec int64, rem uint64) {
	f := c.freq()
	if t >= 0 {
		return int64(uint64(t) / f), uint64(t) % f
	}
	neg := uint64(-(t + 1)) + 1 // |t| without overflow at MinInt64
	sec = -int64(neg / f)
	if r := neg % f; r != 0 {
		sec--
		rem = f - r
	}
	return sec, rem
}

// scale returns v*num/den rounded down; v*num/den must fit in 64 bits.
func scale(v, num, den uint64) uint64 {
	hi, lo := bits.Mul64(v, num)
	if hi >= den {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, den)
	return q
}

// Time converts an absolute timestamp to wall-clock time (UTC).
func (c Clock) Time(t Ticks) time.Time {
	sec, rem := c.split(t)
	return time.Unix(sec, int64(scale(rem, 1e9, c.freq()))).UTC()
}

// Duration converts a tick count to a duration, saturating at the limits.
func (c Clock) Duration(t Ticks) time.Duration {
	neg := t < 0
	mag := uint64(t)
	if neg {
		mag = uint64(-(t + 1)) + 1
	}
	f := c.freq()
	hi, lo := bits.Mul64(mag, 1e9)
	var d uint64 = math.MaxInt64
	if hi < f {
		if q, _ := bits.Div64(hi, lo, f); q < math.MaxInt64 {
			d = q
		}
	}
	if neg {
		return -time.Duration(d)
	}
	return time.Duration(d)
}

// FromTime converts wall-clock time to ticks.
func (c Clock) FromTime(t time.Time) Ticks {
	f := c.freq()
	sec := t.Unix()
	return Ticks(sec*int64(f) + int64(scale(uint64(t.Nanosecond()), f, 1e9)))
}

// FromDuration converts a duration to ticks.
func (c Clock) FromDuration(d time.Duration) Ticks {
	if d < 0 {
		return -c.FromDuration(-d)
	}
	return Ticks(scale(uint64(d), c.freq(), 1e9))
}

// fractionDigits is how many decimal places represent one tick exactly:
// enough that 10^digits >= frequency (9 for nanoseconds).
func (c Clock) fractionDigits() (digits int, pow uint64) {
	f := c.freq()
	pow = 1
	for pow < f && digits < 19 {
		pow *= 10
		digits++
	}
	return digits, pow
}

// appendSeconds renders ticks as decimal seconds, "1174313536.310316085" at
// the default frequency. The fraction is rounded up so that parseSeconds
// (which rounds down) gives back exactly the same ticks at any frequency.
func (c Clock) appendSeconds(dst []byte, t Ticks) []byte {
	mag := uint64(t)
	if t < 0 {
		dst = append(dst, '-')
		mag = uint64(-(t + 1)) + 1
	}
	f := c.freq()
	sec, rem := mag/f, mag%f
	dst = appendUint(dst, sec)
	digits, pow := c.fractionDigits()
	if digits == 0 {
		return dst
	}
	hi, lo := bits.Mul64(rem, pow)
	q, r := bits.Div64(hi, lo, f)
	if r != 0 {
		q++
	}
	dst = append(dst, '.')
	for p := pow / 10; p > 0; p /= 10 {
		dst = append(dst, byte('0'+q/p%10))
	}
	return dst
}

// parseSeconds reads decimal seconds ("-12.000000001", "3", "3.5") into
// ticks, exactly, with integers only. Digits beyond the 18th decimal are
// below one tick at any realistic frequency and are ignored.
func (c Clock) parseSeconds(s []byte) (Ticks, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	i := 0
	var sec uint64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if sec > (math.MaxUint64-9)/10 {
			return 0, false
		}
		sec = sec*10 + uint64(s[i]-'0')
	}
	intDigits := i
	var frac, pow uint64 = 0, 1
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if pow < 1e18 {
				frac = frac*10 + uint64(s[i]-'0')
				pow *= 10
			}
		}
		if pow == 1 && intDigits == 0 {
			return 0, false
		}
	}
	if i != len(s) || (intDigits == 0 && pow == 1) {
		return 0, false
	}
	f := c.freq()
	hi, whole := bits.Mul64(sec, f)
	part := scale(frac, f, pow)
	total, carry := bits.Add64(whole, part, 0)
	if hi != 0 || carry != 0 || total > math.MaxInt64+1 || (total == math.MaxInt64+1 && !neg) {
		return 0, false
	}
	if neg {
		return Ticks(-int64(total-1) - 1), true
	}
	return Ticks(total), true
}

func appendUint(dst []byte, v uint64) []byte {
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(dst, tmp[i:]...)
}

// Nanos converts an absolute timestamp to nanoseconds since the Unix epoch
// (saturating), the cheap form for arithmetic on many events.
func (c Clock) Nanos(t Ticks) int64 {
	if c.Frequency <= 0 || c.Frequency == DefaultFrequency {
		return int64(t)
	}
	return int64(c.Duration(t))
}

// latestTime is the largest absolute timestamp this clock places in time:
// the tick whose nanoseconds since the Unix epoch still fit an int64 (the
// form Nanos and Time.UnixNano give consumers), which is 2262-04-11. At a
// frequency of 1 GHz or more every non-negative tick fits; below it, a
// tick beyond this one would saturate, and every event after it would
// seem to happen at the same instant.
func (c Clock) latestTime() Ticks {
	f := c.freq()
	if f >= DefaultFrequency {
		return math.MaxInt64
	}
	// t is placeable while t*1e9/f rounds down below MaxInt64, that is
	// while t*1e9 < MaxInt64*f.
	hi, lo := bits.Mul64(math.MaxInt64, f)
	q, r := bits.Div64(hi, lo, DefaultFrequency)
	if r == 0 {
		q--
	}
	return Ticks(q)
}

// timeProblem says what makes t impossible as an event's absolute time
// ("time" attribute), "" when it is possible. latest is c.latestTime(),
// which the decoders keep so as not to divide once per event.
//
// A time before 1970 is refused: the trace format's times count from the
// Unix epoch, and no profiler ran before it; such a time is damage (a
// sign bit flipped, a writer's bug), and accepted it would make durations
// of decades. A time the clock cannot hold is refused too: it comes from a
// frequency message that does not fit the stream's times (1 tick per
// second before nanosecond timestamps), and saturated it would put every
// event at the same instant. Both are an error of the message, naming its
// field, so that a consumer never sees a time it cannot use. Durations
// (threadCpuTime, baseTime) are not times: -1 means "not measured" there.
func (c Clock) timeProblem(t, latest Ticks) string {
	switch {
	case t < 0:
		return fmt.Sprintf("%s seconds is before 1970, the epoch the trace's times count from", c.appendSeconds(nil, t))
	case t > latest:
		return fmt.Sprintf("%d ticks at %d ticks per second is after 2262-04-11, the latest time a nanosecond clock holds: the stream's frequency does not fit its times",
			t, c.freq())
	}
	return ""
}

// MinFrequency is the coarsest clock a stream may declare: a millisecond
// (Java's System.currentTimeMillis). A profiler times method calls, lock
// waits and GC pauses of microseconds to milliseconds; a coarser clock
// cannot, so a frequency below this is damage or a writer's mistake
// rather than a real timer. Refusing it at the frequency message keeps the
// clock the stream had: the classic mistake, a frequency message put
// before a stream of nanosecond times, then costs one error and not every
// event's time (each past what the clock holds, see timeProblem).
const MinFrequency = 1000

// frequencyProblem says what is wrong with a frequency message's ticks per
// second, "" when nothing is.
func frequencyProblem(f int64) string {
	if f < MinFrequency {
		return fmt.Sprintf("%d ticks per second, below %d (a millisecond clock, the coarsest a profiler times with): the frequency is refused, the clock stays as it was", f, MinFrequency)
	}
	return ""
}
