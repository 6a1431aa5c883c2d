//go:build !unix

package memory

import "os"

// lockDir only creates the lock file where flock is unavailable.
func lockDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
}
