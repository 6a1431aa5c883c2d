package activities

import (
	"context"

	"github.com/sated-dev/sated/internal/harness"
)

// AuditInput is one audit log entry to append.
type AuditInput struct {
	Entry harness.AuditEntry `json:"entry"`
}

// AuditOutput says whether the entry was written now (false: a retry found it written).
type AuditOutput struct {
	Written bool `json:"written"`
}

// AppendHarnessAudit appends one entry to the harness audit log, once per entry id, so a
// retried activity never writes a line twice; earlier lines are never rewritten.
func (a *GateActivities) AppendHarnessAudit(_ context.Context, in AuditInput) (AuditOutput, error) {
	if in.Entry.ID == "" || in.Entry.Kind == "" {
		return AuditOutput{}, badInput(nil, "an audit entry needs an id and a kind")
	}
	wrote, err := harness.AppendAudit(a.auditPath, in.Entry)
	return AuditOutput{Written: wrote}, err
}
