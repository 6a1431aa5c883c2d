package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// AuditFile is the append-only audit log's name in the harness directory. Temporal forgets a
// closed expansion after its namespace retention; this file keeps who changed the harness, when
// and why, with each version's content hash, for as long as the harness exists.
const AuditFile = "audit.jsonl"

// AuditEntry is one line of the audit log: a harness version recorded, an expansion's event, a
// flag raised or acknowledged. ID is unique per event, so a retried write adds nothing.
type AuditEntry struct {
	ID          string    `json:"id"`
	At          time.Time `json:"at"`
	Kind        string    `json:"kind"`
	ExpansionID string    `json:"expansion_id,omitempty"`
	Cycle       int       `json:"cycle,omitempty"`
	Version     int       `json:"version,omitempty"`
	Hash        string    `json:"hash,omitempty"`
	Flag        int       `json:"flag,omitempty"`
	// By is the self-declared name (--by); User and Host are the OS user and host the starter
	// ran as.
	By     string `json:"by,omitempty"`
	User   string `json:"user,omitempty"`
	Host   string `json:"host,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// auditMu serialises appends within a process; O_APPEND keeps each line whole across processes.
var auditMu sync.Mutex

// AppendAudit appends e to the audit log at path unless an entry with its ID is already there,
// and reports whether it wrote. Existing lines are never rewritten.
func AppendAudit(path string, e AuditEntry) (bool, error) {
	if e.ID == "" || e.Kind == "" {
		return false, fmt.Errorf("an audit entry needs an id and a kind")
	}
	auditMu.Lock()
	defer auditMu.Unlock()
	old, err := ReadAudit(path)
	if err != nil {
		return false, err
	}
	for _, o := range old {
		if o.ID == e.ID {
			return false, nil
		}
	}
	line, err := json.Marshal(e)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return false, err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return false, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return false, err
	}
	return true, f.Close()
}

// ReadAudit reads the audit log; a missing file is an empty log, a line that is not an entry
// is an error naming the line.
func ReadAudit(path string) ([]AuditEntry, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []AuditEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s line %d is not an audit entry: %v", path, n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// AuditPath is the audit log of the harness in dir.
func AuditPath(dir string) string { return filepath.Join(dir, AuditFile) }
