package tui

import "time"

// refreshLadder is the refresh intervals + and - step through: fixed
// steps, so that every one can be reached again (doubling from 100 ms
// never comes back to 1 s).
var refreshLadder = []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second}

// stepRefresh is the next step of the ladder above (up) or below cur.
func stepRefresh(cur time.Duration, up bool) time.Duration {
	if up {
		for _, d := range refreshLadder {
			if d > cur {
				return d
			}
		}
		return refreshLadder[len(refreshLadder)-1]
	}
	for i := len(refreshLadder) - 1; i >= 0; i-- {
		if refreshLadder[i] < cur {
			return refreshLadder[i]
		}
	}
	return refreshLadder[0]
}
