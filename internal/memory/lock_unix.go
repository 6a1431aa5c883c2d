//go:build unix

package memory

import (
	"fmt"
	"os"
	"syscall"
)

// lockDir takes an exclusive, non-blocking lock so a second process cannot open the same
// chromem-go directory: its in-memory index would silently diverge from the first one's.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("memory directory is in use by another process (only the memory worker may open it): %w", err)
	}
	return f, nil
}
