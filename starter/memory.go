package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/memory"
	"github.com/sated-dev/sated/workflows"
)

func init() {
	register("memory", `inspect or prune memory: memory search "text" [-n N] | stats | forget ID|--task TASK | init | repair | reembed | scan [FILE|-]`, memoryCmd)
}

// memoryWait bounds how long the CLI waits for the memory worker.
const memoryWait = 2 * time.Minute

const memoryUsage = `want: memory search "text" [-n N] [--json] | memory stats [--json] | memory forget ID | memory forget --task TASK | memory init [--dir DIR] | memory repair [--dir DIR] | memory reembed [--dir DIR] | memory scan [FILE|-]`

// parseMemoryArgs turns the command line into the admin request.
func parseMemoryArgs(args []string) (workflows.MemoryAdminRequest, bool, error) {
	if len(args) == 0 {
		return workflows.MemoryAdminRequest{}, false, usagef(memoryUsage)
	}
	fs := flag.NewFlagSet("memory "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("n", 10, "results to show")
	task := fs.String("task", "", "forget every observation of this task")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return workflows.MemoryAdminRequest{}, false, err
	}
	req := workflows.MemoryAdminRequest{Op: args[0]}
	switch args[0] {
	case workflows.MemoryOpSearch:
		if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
			return req, false, usagef(`want one search text in quotes: memory search "text"`)
		}
		if *limit < 1 || *limit > 100 {
			return req, false, usagef("-n %d out of range [1,100]", *limit)
		}
		req.Text, req.Limit = pos[0], *limit
	case workflows.MemoryOpStats:
		if len(pos) != 0 {
			return req, false, usagef("memory stats takes no arguments")
		}
	case workflows.MemoryOpForget:
		switch {
		case *task != "" && len(pos) == 0:
			req.Task = *task
		case *task == "" && len(pos) == 1 && pos[0] != "":
			req.ID = pos[0]
		default:
			return req, false, usagef("want exactly one of: memory forget ID | memory forget --task TASK")
		}
	default:
		return req, false, usagef("unknown memory subcommand %q; %s", args[0], memoryUsage)
	}
	return req, *asJSON, nil
}

// memoryWorkflowID names the operation by what it asks, so identical concurrent requests share one run.
func memoryWorkflowID(req workflows.MemoryAdminRequest) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d\x00%s\x00%s", req.Op, req.Text, req.Limit, req.ID, req.Task)))
	return "memory-" + req.Op + "-" + hex.EncodeToString(sum[:6])
}

func memoryCmd(ctx context.Context, env config.Env, args []string) error {
	if len(args) > 0 && args[0] == "scan" {
		return memoryScan(args[1:], os.Stdin, stdout) // local: no server, no memory directory
	}
	if len(args) > 0 && (args[0] == "init" || args[0] == "repair" || args[0] == "reembed") {
		return memoryOffline(ctx, env, args[0], args[1:])
	}
	req, asJSON, err := parseMemoryArgs(args)
	if err != nil {
		return err
	}
	req.TaskQueue = env.MemoryTaskQueue
	c, err := dialTemporal(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, memoryWait)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: memoryWorkflowID(req), TaskQueue: env.MemoryTaskQueue,
		WorkflowExecutionTimeout: memoryWait,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, workflows.MemoryAdminWorkflowName, req)
	if err != nil {
		return fmt.Errorf("start memory %s: %w", req.Op, err)
	}
	var res workflows.MemoryAdminResult
	if err := run.Get(ctx, &res); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("no answer within %s: is a worker serving the memory task queue %q running?", memoryWait, env.MemoryTaskQueue)
		}
		return err
	}
	return printMemoryResult(stdout, res, asJSON)
}

// printMemoryResult shows the answer of one admin operation.
func printMemoryResult(w io.Writer, res workflows.MemoryAdminResult, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	switch {
	case res.Search != nil:
		if res.Search.Note != "" {
			fmt.Fprintf(w, "note: %s\n", res.Search.Note)
		}
		if len(res.Search.Hits) == 0 {
			fmt.Fprintln(w, "no observations match")
		}
		for i, h := range res.Search.Hits {
			fmt.Fprintf(w, "%2d. %s  (score %.3f = vector %.3f + 0.4×text %.3f)\n    %s\n    task: %s, %s\n",
				i+1, h.ID, h.Score, h.Vector, h.Text, h.Fact, h.Task, h.At.Format("2006-01-02"))
			for _, s := range h.Sources {
				fmt.Fprintf(w, "    source: %s\n", s)
			}
		}
	case res.Stats != nil:
		s := res.Stats
		fmt.Fprintf(w, "%d observations, %d quarantined\nvectors:   %d\nfull-text: %d\ndirectory: %s\nembedder:  %s\nbackends:  %s\n",
			s.Count, s.Quarantined, s.VectorCount, s.FullTextCount, s.Dir, s.Embedder, strings.Join(s.Backends, ", "))
		if s.Note != "" {
			fmt.Fprintf(w, "note: %s\n", s.Note)
		}
	case res.Forget != nil:
		fmt.Fprintf(w, "removed %d observation(s)\n", res.Forget.Removed)
		if res.Forget.Note != "" {
			fmt.Fprintf(w, "note: %s\n", res.Forget.Note)
		}
	}
	return nil
}

// memoryOffline runs init and repair on the store directory itself, without Temporal or a
// worker: init is the operator's one explicit creation of the store, repair rebuilds its
// full-text side while the memory worker is stopped.
func memoryOffline(ctx context.Context, env config.Env, op string, args []string) error {
	fs := flag.NewFlagSet("memory "+op, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", env.MemoryDir(), "the memory store (default: $SATED_DATA_DIR/memory)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("memory %s takes no arguments (the store is --dir, default $SATED_DATA_DIR/memory)", op)
	}
	if op == "init" {
		existed, n, err := memory.Init(*dir)
		if err != nil {
			return err
		}
		if existed {
			fmt.Fprintf(stdout, "memory store %s already exists (%d observations); left as it is\n", *dir, n)
		} else {
			fmt.Fprintf(stdout, "created an empty memory store in %s\n", *dir)
		}
		return nil
	}
	if op == "reembed" {
		return memoryReembed(ctx, env, *dir)
	}
	last := time.Now()
	res, err := memory.Repair(ctx, *dir, func(done, total int) {
		if done == total || time.Since(last) > time.Second {
			last = time.Now()
			fmt.Fprintf(stderr, "  %d/%d observations written to the new full-text index\n", done, total)
		}
	})
	if err != nil {
		return err
	}
	before := "unreadable"
	if res.Before >= 0 {
		before = fmt.Sprint(res.Before)
	}
	fmt.Fprintf(stdout, "repaired %s: the full-text index now holds all %d observations of the vector store (before: %s)\n", res.Dir, res.Observations, before)
	if res.Manifest {
		fmt.Fprintln(stdout, "the manifest was missing or did not parse and was rebuilt from the vector store")
	}
	return nil
}

// scanLine is the verdict of the injection scan on one input line.
type scanLine struct {
	Line        int      `json:"line"`
	Quarantined bool     `json:"quarantined"`
	Findings    []string `json:"findings"`
}

// memoryScan runs the injection scan memory applies to every observation over each line of
// FILE (or stdin for none or "-") and prints one JSON object per line. Lines of any length.
func memoryScan(args []string, stdin io.Reader, w io.Writer) error {
	in := stdin
	switch {
	case len(args) > 1:
		return usagef("want: memory scan [FILE|-]")
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help"):
		fmt.Fprintln(w, `memory scan [FILE|-]: one JSON object per input line, {"line":N,"quarantined":bool,"findings":[...]}`)
		return errHelpShown
	case len(args) == 1 && args[0] != "-":
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	r := bufio.NewReader(in)
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for n := 1; ; n++ {
		line, err := r.ReadString('\n')
		if err != nil && err != io.EOF {
			return err
		}
		if line == "" && err == io.EOF {
			break // the last line ended with a newline
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF") // a file's byte-order mark is not hidden text
		}
		findings := memory.ScanInjection(line)
		if findings == nil {
			findings = []string{}
		}
		if err := enc.Encode(scanLine{Line: n, Quarantined: len(findings) > 0, Findings: findings}); err != nil {
			return err
		}
		if err == io.EOF {
			break
		}
	}
	return bw.Flush()
}

// memoryReembed re-embeds the store with the embedder the worker is configured with: the
// Ollama model SATED_EMBED_MODEL at OLLAMA_HOST, else the offline lexical embedder.
func memoryReembed(ctx context.Context, env config.Env, dir string) error {
	var emb memory.Embedder = memory.LexicalEmbedder{}
	id := memory.LexicalEmbedder{}.ID()
	if env.OllamaHost != "" && env.EmbedModel != "" {
		m, err := llm.New(llm.DefaultConfig(env.OllamaHost, "", "", "", env.EmbedModel, ""), nil)
		if err != nil {
			return fmt.Errorf("ollama at %s: %w", env.OllamaHost, err)
		}
		emb, id = llm.MemoryEmbedder{C: m}, llm.MemoryEmbedderID(env.EmbedModel)
	}
	last := time.Now()
	res, err := memory.Reembed(ctx, dir, emb, id, func(done, total int) {
		if done == total || time.Since(last) > time.Second {
			last = time.Now()
			fmt.Fprintf(stderr, "  %d/%d observations embedded with %s\n", done, total, id)
		}
	})
	if err != nil {
		return err
	}
	if res.Unchanged {
		fmt.Fprintf(stdout, "memory store %s already uses %s; nothing to do\n", res.Dir, id)
		return nil
	}
	fmt.Fprintf(stdout, "re-embedded %d observations in %s from %s to %s; the old vectors are in %s (delete them once the worker runs)\n",
		res.Observations, res.Dir, res.From, res.To, res.OldVectors)
	return nil
}
