//go:build !linux

package client

// lowWaterSupported: elsewhere the reader is woken for whatever arrives.
const lowWaterSupported = false

func setReceiveLowWater(fd uintptr, bytes int) bool { return false }
