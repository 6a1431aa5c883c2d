package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/workflows"
)

// The tamper-evident harness from the starter's side: the versions it writes (init, import
// through an expansion) are recorded in the monitor first; verify checks every file against
// those records; restore puts a verified version back. Both clear the monitor's tamper state,
// which stops expansions while set.

// harnessMonitorRef is the monitor that keeps the recorded hashes.
func harnessMonitorRef(taskQueue string) activities.HarnessMonitor {
	return workflows.MonitorRef(harnessMonitorID, taskQueue)
}

// harnessRecorder records a version's hash in the monitor before the starter writes it.
func harnessRecorder(ctx context.Context, c client.Client, taskQueue string) func(harness.Harness) error {
	return func(h harness.Harness) error {
		return activities.RecordHarnessVersion(ctx, c, harnessMonitorRef(taskQueue), harness.Record(h, time.Now()))
	}
}

// harnessLedgered dials the monitor and returns the harness files' store with the hashes the
// monitor recorded for them; the caller closes the client.
func harnessLedgered(ctx context.Context, env config.Env) (client.Client, *harness.Store, harness.Ledger, error) {
	c, err := harnessDial(ctx, env)
	if err != nil {
		return nil, nil, nil, err
	}
	l, err := activities.HarnessLedger(ctx, c, harnessMonitorRef(env.TaskQueue))
	if err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	return c, harness.NewStore(env.HarnessDir()), l, nil
}

// harnessClearTamper tells the monitor a person checked the files; it says what was cleared.
func harnessClearTamper(ctx context.Context, c client.Client, by, reason string) (*harness.Tamper, error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: harnessMonitorID, UpdateName: workflows.MonitorClearTamperUpdate,
		Args: []any{workflows.ClearTamperRequest{By: by, Reason: reason}}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return nil, fmt.Errorf("clearing the monitor's tamper state: %s", workflows.Readable(err))
	}
	var res workflows.ClearTamperResult
	if err := h.Get(ctx, &res); err != nil {
		return nil, fmt.Errorf("clearing the monitor's tamper state: %s", workflows.Readable(err))
	}
	return res.Cleared, nil
}

// harnessVerifyCmd checks every harness file against the hashes the monitor recorded.
func harnessVerifyCmd(ctx context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("harness verify", flag.ContinueOnError)
	adopt := fs.Bool("adopt", false, "record the hashes of a harness written before sated recorded them (only when the monitor records none)")
	asJSON := fs.Bool("json", false, "print the checks as JSON")
	by := fs.String("by", env.User, "who verifies (recorded when the check clears a tamper state)")
	if pos, err := harnessParse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("harness verify takes no arguments")
	}
	if strings.TrimSpace(*by) == "" {
		return usagef("harness verify needs --by NAME (or USER)")
	}
	c, store, l, err := harnessLedgered(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	if *adopt {
		if l, err = harnessAdopt(ctx, c, env.TaskQueue, store, l); err != nil {
			return err
		}
	}
	checks, err := store.Verify(l)
	if err != nil {
		return err
	}
	if *asJSON {
		err = harnessJSON(stdout, checks)
	} else {
		err = harnessPrintChecks(stdout, store.Dir(), checks)
	}
	if err != nil {
		return err
	}
	return harnessVerdict(ctx, c, store, checks, *by)
}

// harnessVerdict clears the monitor's tamper state when current.json verifies, and fails when
// any file does not.
func harnessVerdict(ctx context.Context, c client.Client, store *harness.Store, checks []harness.FileCheck, by string) error {
	var bad []string
	for _, ch := range checks {
		if ch.State != harness.FileOK {
			bad = append(bad, ch.File+" "+ch.State)
		}
	}
	if cur := checks[0]; cur.State == harness.FileOK {
		cleared, err := harnessClearTamper(ctx, c, by, fmt.Sprintf("harness verify: current.json v%d matches its recorded hash", cur.Version))
		if err != nil {
			return err
		}
		if cleared != nil {
			fmt.Fprintf(stdout, "cleared the monitor's tamper state (%s); cycles and expansions run again\n", cleared.File)
		}
	}
	if len(bad) > 0 {
		newest := 0
		for _, ch := range checks[1:] {
			if ch.State == harness.FileOK && ch.Version > newest {
				newest = ch.Version
			}
		}
		hint := "no archived version verifies: restore the harness directory from a backup"
		if newest > 0 {
			hint = fmt.Sprintf("'starter harness restore %d' puts the newest verified version back", newest)
		}
		return fmt.Errorf("%d harness file(s) fail verification in %s (%s); %s", len(bad), store.Dir(), strings.Join(bad, ", "), hint)
	}
	return nil
}

// harnessAdopt records the hashes of every version on disk when the monitor records none: the
// one way to bring a harness from before recorded hashes under verification.
func harnessAdopt(ctx context.Context, c client.Client, taskQueue string, store *harness.Store, l harness.Ledger) (harness.Ledger, error) {
	if len(l) > 0 {
		return l, fmt.Errorf("the monitor already records %d harness version(s): adopting would accept edited files; restore a verified version instead ('starter harness verify' lists them)", len(l))
	}
	record := harnessRecorder(ctx, c, taskQueue)
	versions, err := store.Versions()
	if err != nil {
		return l, err
	}
	for _, v := range versions {
		h, err := store.Version(v)
		if err != nil {
			return l, fmt.Errorf("cannot adopt: %v", err)
		}
		if err := record(h); err != nil {
			return l, err
		}
		l = l.With(harness.Record(h, time.Now()))
	}
	cur, err := store.Current()
	if err != nil {
		return l, fmt.Errorf("cannot adopt: %v", err)
	}
	if _, ok := l.Hash(cur.Version); !ok {
		if err := record(cur); err != nil {
			return l, err
		}
		l = l.With(harness.Record(cur, time.Now()))
	}
	fmt.Fprintf(stdout, "adopted %d harness version(s) as they are on disk\n", len(l))
	return l, nil
}

func harnessPrintChecks(w io.Writer, dir string, checks []harness.FileCheck) error {
	fmt.Fprintf(w, "harness files in %s against the hashes recorded in the monitor:\n", dir)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tVERSION\tSTATE\tRECORDED\tFOUND\tNOTE")
	for _, c := range checks {
		note := c.Problem
		switch c.State {
		case harness.FileUnknown:
			note = "never recorded: planted or written by hand"
		case harness.FileModified:
			if note == "" {
				note = "changed outside sated"
			}
		}
		exp, found := "-", "-"
		if c.Expected != "" {
			exp = harness.Short(c.Expected)
		}
		if c.Found != "" {
			found = harness.Short(c.Found)
		}
		fmt.Fprintf(tw, "%s\tv%d\t%s\t%s\t%s\t%s\n", c.File, c.Version, c.State, exp, found, note)
	}
	return tw.Flush()
}

// harnessRestoreCmd puts a verified archived version back in force.
func harnessRestoreCmd(ctx context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("harness restore", flag.ContinueOnError)
	by := fs.String("by", env.User, "who restores")
	pos, err := harnessParse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("harness restore needs one VERSION (starter harness verify lists the verified ones)")
	}
	v, err := strconv.Atoi(strings.TrimPrefix(pos[0], "v"))
	if err != nil || v < 1 {
		return usagef("harness restore: %q is not a version number", pos[0])
	}
	if strings.TrimSpace(*by) == "" {
		return usagef("harness restore needs --by NAME (or USER)")
	}
	c, store, l, err := harnessLedgered(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	h, err := store.RestoreVerified(v, l)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "harness v%d (hash %s) restored as current.json in %s\n", h.Version, harness.Short(harness.ContentHash(h)), store.Dir())
	cleared, err := harnessClearTamper(ctx, c, *by, fmt.Sprintf("harness restore %d", v))
	if err != nil {
		return err
	}
	if cleared != nil {
		fmt.Fprintf(stdout, "cleared the monitor's tamper state (%s); cycles and expansions run again\n", cleared.File)
	}
	return nil
}

// harnessPrintIntegrity checks current.json against the status's records for harness status.
func harnessPrintIntegrity(w io.Writer, dir string, st workflows.MonitorStatus) {
	if t := st.Tamper; t != nil {
		fmt.Fprintf(w, "HARNESS TAMPERED since %s: %s\n", t.At.Format(time.RFC3339), t.Message)
	}
	store := harness.NewStore(dir)
	_, err := store.CurrentVerified(st.Ledger)
	var te *harness.TamperError
	switch {
	case errors.As(err, &te):
		if st.Tamper == nil {
			fmt.Fprintf(w, "harness files: %v\n", err)
		}
	case errors.Is(err, harness.ErrNoHarness), errors.Is(err, os.ErrNotExist):
		fmt.Fprintf(w, "harness files: none in %s\n", dir)
	case err != nil:
		fmt.Fprintf(w, "harness files: %v\n", err)
	default:
		fmt.Fprintf(w, "harness files: current.json verifies (%d version(s) recorded)\n", len(st.Ledger))
	}
}
