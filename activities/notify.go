package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/sated-dev/sated/internal/harness"
)

// Notice kinds: what the harness gate tells its people without being asked.
const (
	NoticeFlagRaised       = "flag-raised"
	NoticeAwaitingApproval = "awaiting-approval"
	NoticeApprovalExpiring = "approval-expiring"
	NoticeApplied          = "applied"
	NoticeRolledBack       = "rolled-back"
)

// notifyTimeout bounds one webhook POST or one command hook run; Temporal retries past it.
const notifyTimeout = 10 * time.Second

// Notice is the JSON document the webhook receives and the command hook reads on stdin.
type Notice struct {
	// ID is unique per notice and the same on every retry (also sent as X-Sated-Notice-Id), so
	// a receiver can drop duplicates.
	ID          string     `json:"id"`
	Event       string     `json:"event"`
	At          time.Time  `json:"at"`
	Monitor     string     `json:"monitor"`
	ExpansionID string     `json:"expansion_id,omitempty"`
	Cycle       int        `json:"cycle,omitempty"`
	Flag        int        `json:"flag,omitempty"`
	Version     int        `json:"version,omitempty"`
	By          string     `json:"by,omitempty"`
	Reason      string     `json:"reason,omitempty"`
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
	// Text is the notice as one sentence for a person (chat webhooks show it as is).
	Text string `json:"text"`
}

// NotifyInput is one notice to send.
type NotifyInput struct {
	Notice Notice `json:"notice"`
}

// NotifyOutput says where the notice went: "webhook", "command", or nowhere when neither is
// configured.
type NotifyOutput struct {
	Sent []string `json:"sent,omitempty"`
}

// GateActivities are the harness gate's side effects: notifications to the operator's webhook
// or command hook, and the append-only audit log beside the harness.
type GateActivities struct {
	url, command string
	http         *http.Client
	auditPath    string
}

// NewGateActivities sends notices to url (SATED_NOTIFY_URL) and through command
// (SATED_NOTIFY_COMMAND), either may be empty, and appends the audit log in harnessDir.
func NewGateActivities(url, command, harnessDir string) *GateActivities {
	// a plain client: the operator chose the URL, so loopback and private addresses are fine
	return &GateActivities{url: url, command: command, http: &http.Client{Timeout: notifyTimeout}, auditPath: harness.AuditPath(harnessDir)}
}

// Notify sends one notice to the webhook and the command hook. A failure is retried by
// Temporal; the workflows record a notice that still fails and carry on.
func (a *GateActivities) Notify(ctx context.Context, in NotifyInput) (NotifyOutput, error) {
	var out NotifyOutput
	if in.Notice.ID == "" || in.Notice.Event == "" {
		return out, badInput(nil, "a notice needs an id and an event")
	}
	body, err := json.Marshal(in.Notice)
	if err != nil {
		return out, badInput(err, "encoding the notice: %v", err)
	}
	// the command hook first: a webhook that fails must not resend a command that worked on
	// every retry, and the reverse; each is idempotent by the notice id for the receiver
	if a.command != "" {
		if err := a.runCommand(ctx, body); err != nil {
			return out, err
		}
		out.Sent = append(out.Sent, "command")
	}
	if a.url != "" {
		if err := a.post(ctx, in.Notice.ID, body); err != nil {
			return out, err
		}
		out.Sent = append(out.Sent, "webhook")
	}
	return out, nil
}

func (a *GateActivities) post(ctx context.Context, id string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, bytes.NewReader(body))
	if err != nil {
		return badInput(err, "SATED_NOTIFY_URL: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Sated-Notice-Id", id)
	resp, err := a.http.Do(req)
	if err != nil {
		return fmt.Errorf("notification webhook: %w", err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch {
	case resp.StatusCode < 300:
		return nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusRequestTimeout:
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("notification webhook refused the notice: %s %s", resp.Status, strings.TrimSpace(string(msg))), ErrBadInput, nil)
	default:
		return fmt.Errorf("notification webhook: %s %s", resp.Status, strings.TrimSpace(string(msg)))
	}
}

func (a *GateActivities) runCommand(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", a.command)
	cmd.Stdin = bytes.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tail := strings.TrimSpace(out.String())
		if len(tail) > 300 {
			tail = tail[len(tail)-300:]
		}
		return fmt.Errorf("notification command %q: %v: %s", a.command, err, tail)
	}
	return nil
}
