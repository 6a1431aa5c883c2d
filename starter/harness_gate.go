package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/user"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/workflows"
)

// The operator gate's commands: acknowledge a flag, read the audit log, the status's cycle
// table and chart, and an expansion's diff.

// starterIdentity is the OS user and host this starter runs as, recorded beside the
// self-declared --by of a decision or an acknowledgement. It is what the machine says, not an
// authenticated identity: only Temporal's own authorization makes that.
func starterIdentity() (string, string) {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	return name, host
}

// harnessAckCmd acknowledges a review flag: starter harness ack FLAG --reason TEXT [--by NAME].
func harnessAckCmd(ctx context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("harness ack", flag.ContinueOnError)
	by := fs.String("by", env.User, "who acknowledges")
	reason := fs.String("reason", "", "why the flag needs nothing more")
	pos, err := harnessParse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("harness ack needs one FLAG number (harness status lists them)")
	}
	id, err := strconv.Atoi(pos[0])
	if err != nil || id < 1 {
		return usagef("harness ack: %q is not a flag number", pos[0])
	}
	if strings.TrimSpace(*by) == "" || strings.TrimSpace(*reason) == "" {
		return usagef("harness ack needs --reason TEXT (and --by NAME when USER is unset)")
	}
	c, err := harnessDial(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	f, err := harnessAck(ctx, c, id, *by, *reason)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "flag %d (cycle %d: %s) acknowledged by %s\n", f.ID, f.Cycle, f.Reason, f.Ack.By)
	return nil
}

// harnessAck sends the acknowledgement to the monitor's validated update.
func harnessAck(ctx context.Context, c client.Client, id int, by, reason string) (workflows.ReviewFlag, error) {
	u, h := starterIdentity()
	var f workflows.ReviewFlag
	uh, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: harnessMonitorID, UpdateName: workflows.MonitorAckFlagUpdate,
		Args: []any{workflows.AckFlagRequest{Flag: id, By: by, Reason: reason, User: u, Host: h}}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err == nil {
		err = uh.Get(ctx, &f)
	}
	if err != nil {
		return f, errors.New(workflows.Readable(err))
	}
	return f, nil
}

// harnessAuditCmd prints the audit log: starter harness audit [--json].
func harnessAuditCmd(_ context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("harness audit", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the entries as JSON")
	if pos, err := harnessParse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("harness audit takes no arguments")
	}
	path := harness.AuditPath(env.HarnessDir())
	entries, err := harness.ReadAudit(path)
	if err != nil {
		return err
	}
	if *asJSON {
		return harnessJSON(stdout, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintf(stdout, "no audit entries in %s yet\n", path)
		return nil
	}
	return harnessPrintAudit(stdout, entries)
}

func harnessPrintAudit(w io.Writer, entries []harness.AuditEntry) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "AT\tEVENT\tVERSION\tHASH\tEXPANSION\tFLAG\tBY (OS USER@HOST)\tREASON")
	for _, e := range entries {
		ver, flagN, hash := "", "", ""
		if e.Version > 0 {
			ver = fmt.Sprintf("v%d", e.Version)
		}
		if e.Flag > 0 {
			flagN = strconv.Itoa(e.Flag)
		}
		if e.Hash != "" {
			hash = harness.Short(e.Hash)
		}
		by := e.By
		if e.User != "" || e.Host != "" {
			by += fmt.Sprintf(" (%s@%s)", e.User, e.Host)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.At.UTC().Format(time.RFC3339), e.Kind, ver, hash, e.ExpansionID, flagN, by, e.Reason)
	}
	return tw.Flush()
}

// harnessPrintFlags lists the open flags, then the acknowledged ones apart.
func harnessPrintFlags(w io.Writer, flags []workflows.ReviewFlag) {
	var open, acked []workflows.ReviewFlag
	for _, f := range flags {
		if f.Ack != nil {
			acked = append(acked, f)
		} else {
			open = append(open, f)
		}
	}
	if len(open) > 0 {
		fmt.Fprintln(w, "flagged for review (starter harness ack N --reason ...):")
		for _, f := range open {
			fmt.Fprintf(w, "  %s cycle %d %s %s %s\n", flagNumber(f), f.Cycle, f.At.UTC().Format(time.RFC3339), f.ExpansionID, f.Reason)
		}
	}
	if len(acked) > 0 {
		fmt.Fprintln(w, "acknowledged flags:")
		for _, f := range acked {
			fmt.Fprintf(w, "  %s cycle %d %s: acked by %s at %s: %s\n", flagNumber(f), f.Cycle, f.Reason, f.Ack.By, f.Ack.At.UTC().Format(time.RFC3339), f.Ack.Reason)
		}
	}
}

func flagNumber(f workflows.ReviewFlag) string {
	if f.ID == 0 {
		return "[-]" // from before numbered flags; acknowledgeable once the monitor continues as new
	}
	return fmt.Sprintf("[%d]", f.ID)
}

// sparkBlocks draw a score in [0,1] as one character.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws scores in [0,1] as one line of block characters.
func Sparkline(scores []float64) string {
	var b strings.Builder
	for _, s := range scores {
		i := int(math.Round(math.Max(0, math.Min(1, s)) * float64(len(sparkBlocks)-1)))
		b.WriteRune(sparkBlocks[i])
	}
	return b.String()
}

// harnessPrintHistory prints the last cycles as a table with a bar per score, and a sparkline.
func harnessPrintHistory(w io.Writer, rows []workflows.CycleRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "last %d cycles (levels: NORMAL <0.50 <= ELEVATED <0.70 <= HIGH <0.85 <= CRITICAL):\n", len(rows))
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "CYCLE\tAT\tHARNESS\tSCORE\tLEVEL\tDECISION\t")
	scores := make([]float64, len(rows))
	for i, r := range rows {
		scores[i] = r.Score
		ver := "-"
		if r.Version > 0 {
			ver = fmt.Sprintf("v%d", r.Version)
		}
		bar := strings.Repeat("#", int(math.Round(math.Max(0, math.Min(1, r.Score))*20)))
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.3f\t%s\t%s\t%s\n", r.Cycle, r.At.UTC().Format("2006-01-02 15:04"), ver, r.Score, r.Level, r.Decision, bar)
	}
	tw.Flush()
	fmt.Fprintf(w, "scores: %s  (cycle %d to %d)\n", Sparkline(scores), rows[0].Cycle, rows[len(rows)-1].Cycle)
}

// chartBands are the level bands of the SVG chart, lowest first.
var chartBands = []struct {
	level    harness.Level
	from, to float64
	color    string
}{
	{harness.LevelNormal, 0, 0.5, "#e8f5e9"},
	{harness.LevelElevated, 0.5, 0.7, "#fff8e1"},
	{harness.LevelHigh, 0.7, 0.85, "#ffe0b2"},
	{harness.LevelCritical, 0.85, 1, "#ffcdd2"},
}

var chartLevelColor = map[harness.Level]string{
	harness.LevelNormal: "#2e7d32", harness.LevelElevated: "#f9a825", harness.LevelHigh: "#ef6c00", harness.LevelCritical: "#c62828",
}

// HistoryChartSVG draws the cycles' scores over the level bands as a standalone SVG.
func HistoryChartSVG(rows []workflows.CycleRow) []byte {
	const width, height, left, right, top, bottom = 640.0, 300.0, 56.0, 96.0, 28.0, 40.0
	pw, ph := width-left-right, height-top-bottom
	y := func(s float64) float64 { return top + ph*(1-math.Max(0, math.Min(1, s))) }
	x := func(i int) float64 {
		if len(rows) < 2 {
			return left + pw/2
		}
		return left + pw*float64(i)/float64(len(rows)-1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%.0f" height="%.0f" fill="white"/>`+"\n", width, height)
	title := "sated harness saturation: no cycles yet"
	if len(rows) > 0 {
		title = fmt.Sprintf("sated harness saturation, cycles %d to %d", rows[0].Cycle, rows[len(rows)-1].Cycle)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="18" font-size="13" font-weight="bold">%s</text>`+"\n", left, title)
	for _, band := range chartBands {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", left, y(band.to), pw, y(band.from)-y(band.to), band.color)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s">%s</text>`+"\n", left+pw+6, (y(band.from)+y(band.to))/2+4, chartLevelColor[band.level], band.level)
	}
	for _, t := range []float64{0, 0.5, 0.7, 0.85, 1} {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#bdbdbd" stroke-width="0.5"/>`+"\n", left, y(t), left+pw, y(t))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%.2f</text>`+"\n", left-6, y(t)+4, t)
	}
	if len(rows) > 0 {
		pts := make([]string, len(rows))
		for i, r := range rows {
			pts[i] = fmt.Sprintf("%.1f,%.1f", x(i), y(r.Score))
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#37474f" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "))
		for i, r := range rows {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>cycle %d: %.3f %s</title></circle>`+"\n", x(i), y(r.Score), chartLevelColor[r.Level], r.Cycle, r.Score, r.Level)
			if len(rows) <= 20 || i%5 == 0 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", x(i), top+ph+16, r.Cycle)
			}
		}
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">cycle</text>`+"\n", left+pw/2, height-6)
	fmt.Fprintf(&b, `<text x="14" y="%.1f" text-anchor="middle" transform="rotate(-90 14 %.1f)">saturation score</text>`+"\n", top+ph/2, top+ph/2)
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// expansionDiff prints the harness change an expansion proposes or applied: thresholds old to
// new, new tests, enables, regression tests and gates, then what the ratchet refused. base is the
// version it was proposed over, when the store has it.
func expansionDiff(w io.Writer, st workflows.ExpansionStatus, base *harness.Harness) {
	p := st.Accepted
	fmt.Fprintf(w, "expansion %s (%s) over harness v%d", st.ID, st.State, st.BaseVersion)
	if st.CommittedVersion > 0 {
		fmt.Fprintf(w, ", applied as v%d", st.CommittedVersion)
	}
	if st.Decision != nil {
		fmt.Fprintf(w, ", %s", decisionText(*st.Decision))
	}
	fmt.Fprintln(w)
	if p.Empty() {
		fmt.Fprintln(w, "  no change passed the ratchet")
	}
	for _, t := range p.ThresholdIncreases {
		old := t.Current
		if base != nil {
			if b, ok := base.Benchmark(t.BenchmarkID); ok {
				old = b.Threshold
			}
		}
		fmt.Fprintf(w, "~ threshold %s: %.2f -> %.2f  (%s)\n", t.BenchmarkID, old, t.Proposed, t.Rationale)
	}
	for _, b := range p.NewBenchmarks {
		fmt.Fprintf(w, "+ benchmark %s (threshold %.2f, %d gold facts, enters disabled): %s\n", b.ID, b.Threshold, len(b.Gold), b.Question)
	}
	for _, e := range p.NewEdgeCases {
		fmt.Fprintf(w, "+ edge case %s (%d gold facts, enters disabled): %s\n", e.ID, len(e.Gold), e.Description)
	}
	for _, id := range p.EnableTests {
		fmt.Fprintf(w, "+ enable %s (once it passes at baseline)\n", id)
	}
	for _, id := range p.NewRegressionTests {
		fmt.Fprintf(w, "+ regression test %s\n", id)
	}
	if g := p.Gates; g != nil {
		var old harness.Gates
		if base != nil {
			old = base.Gates
		}
		fmt.Fprintf(w, "~ gates: citation validity >= %.2f -> %.2f, invalid citations <= %d -> %d\n", old.MinCitationValidity, g.MinCitationValidity, old.MaxInvalidCitations, g.MaxInvalidCitations)
	}
	for _, t := range st.NewTests {
		verdict := "passed at baseline, enabled"
		if !t.Passed {
			verdict = "failed at baseline, left disabled"
		}
		fmt.Fprintf(w, "  %s: %s (%.2f) %s\n", t.ID, verdict, t.Score, t.Note)
	}
	for _, r := range st.Refusals {
		fmt.Fprintf(w, "x refused %s: %s\n", r.Change, r.Reason)
	}
	if p.Rationale != "" {
		fmt.Fprintf(w, "rationale: %s\n", p.Rationale)
	}
}
