package client

import "syscall"

// lowWaterSupported: Linux's poll of a TCP socket honours the receive
// low-water mark, so the network poller wakes the reader at the mark.
const lowWaterSupported = true

func setReceiveLowWater(fd uintptr, bytes int) bool {
	return syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, bytes) == nil
}
