package activities

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/sated-dev/sated/internal/harness"
)

func TestNotifyPostsToTheWebhookAndRunsTheCommand(t *testing.T) {
	var got Notice
	var header string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header = r.Header.Get("X-Sated-Notice-Id")
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &got); err != nil || r.Header.Get("Content-Type") != "application/json" || r.Method != http.MethodPost {
			http.Error(w, "bad", http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "hook.json")
	a := NewGateActivities(srv.URL+"/hook", "cat > "+out, t.TempDir())
	var env testsuite.WorkflowTestSuite
	ae := env.NewTestActivityEnvironment()
	ae.RegisterActivity(a)
	n := Notice{ID: "m/r/1", Event: NoticeFlagRaised, At: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Monitor: "m", Flag: 1, Text: "flag 1 raised"}
	v, err := ae.ExecuteActivity(a.Notify, NotifyInput{Notice: n})
	if err != nil {
		t.Fatal(err)
	}
	var res NotifyOutput
	if err := v.Get(&res); err != nil || strings.Join(res.Sent, ",") != "command,webhook" {
		t.Fatalf("sent %v %v", res.Sent, err)
	}
	if got.ID != n.ID || got.Event != n.Event || got.Text != n.Text || header != n.ID {
		t.Fatalf("webhook received %+v (id header %q)", got, header)
	}
	data, err := os.ReadFile(out)
	var fromCmd Notice
	if err != nil || json.Unmarshal(data, &fromCmd) != nil || fromCmd.ID != n.ID {
		t.Fatalf("the command read %q %v", data, err)
	}
}

func TestNotifyFailuresRetryOrNot(t *testing.T) {
	status := http.StatusServiceUnavailable
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", status) }))
	defer srv.Close()
	var env testsuite.WorkflowTestSuite
	n := NotifyInput{Notice: Notice{ID: "x", Event: NoticeApplied}}
	for _, c := range []struct {
		url, cmd     string
		status       int
		nonRetryable bool
		want         string
	}{
		{srv.URL, "", http.StatusServiceUnavailable, false, "503"},
		{srv.URL, "", http.StatusTooManyRequests, false, "429"},
		{srv.URL, "", http.StatusNotFound, true, "refused the notice: 404"},
		{"", "echo broken >&2; exit 3", 0, false, "broken"},
	} {
		status = c.status
		a := NewGateActivities(c.url, c.cmd, t.TempDir())
		ae := env.NewTestActivityEnvironment()
		ae.RegisterActivity(a)
		_, err := ae.ExecuteActivity(a.Notify, n)
		var app *temporal.ApplicationError
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want %s", c.url, c.cmd, err, c.want)
			continue
		}
		if isApp := errors.As(err, &app); !isApp || app.NonRetryable() != c.nonRetryable {
			t.Errorf("%s %q: non-retryable %v, want %v", c.url, c.cmd, app != nil && app.NonRetryable(), c.nonRetryable)
		}
	}
	a := NewGateActivities("", "", t.TempDir())
	ae := env.NewTestActivityEnvironment()
	ae.RegisterActivity(a)
	v, err := ae.ExecuteActivity(a.Notify, n)
	var res NotifyOutput
	if err != nil || v.Get(&res) != nil || len(res.Sent) != 0 {
		t.Fatalf("nothing configured: %v %v", res, err)
	}
}

func TestAppendHarnessAuditOncePerID(t *testing.T) {
	dir := t.TempDir()
	a := NewGateActivities("", "", dir)
	var env testsuite.WorkflowTestSuite
	ae := env.NewTestActivityEnvironment()
	ae.RegisterActivity(a)
	e := harness.AuditEntry{ID: "m/r/7", Kind: "approved", ExpansionID: "x", By: "ann", User: "ann", Host: "box", Reason: "ok"}
	for i, want := range []bool{true, false} {
		v, err := ae.ExecuteActivity(a.AppendHarnessAudit, AuditInput{Entry: e})
		var out AuditOutput
		if err != nil || v.Get(&out) != nil || out.Written != want {
			t.Fatalf("append %d: %+v %v", i, out, err)
		}
	}
	if got, err := harness.ReadAudit(filepath.Join(dir, harness.AuditFile)); err != nil || len(got) != 1 || got[0] != e {
		t.Fatalf("audit log %+v %v", got, err)
	}
}
