// Command starter is the CLI people type: research, watch, report, stop, corpus, eval,
// memory, harness and expansion.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"

	"go.temporal.io/sdk/client"

	"github.com/sated-dev/sated/internal/codec"
	"github.com/sated-dev/sated/internal/config"
)

// command is one subcommand. Files of this package add theirs in init. Every command gets the
// process configuration read once by run.
type command struct {
	summary string
	run     commandFunc
}

// commandFunc runs one subcommand with its arguments (the command name stripped).
type commandFunc func(ctx context.Context, env config.Env, args []string) error

var commands = map[string]command{}

var stdout io.Writer = os.Stdout
var stderr io.Writer = os.Stderr

func register(name, summary string, run commandFunc) {
	commands[name] = command{summary: summary, run: run}
}

// aliases are the short verbs people reach for first ("start a run, watch it, approve the
// expansion"): each stands for a command and, for approve and reject, its subcommand.
var aliases = map[string][]string{
	"start":   {"research"},
	"approve": {"expansion", "approve"},
	"reject":  {"expansion", "reject"},
}

// expandAlias rewrites an alias at the head of args into the command it stands for.
func expandAlias(args []string) []string {
	if len(args) == 0 {
		return args
	}
	if to, ok := aliases[args[0]]; ok {
		return append(slices.Clone(to), args[1:]...)
	}
	return args
}

// usageError is printed as a one-line error with a pointer to help; exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// errHelpShown ends a command whose -h printed its flags.
var errHelpShown = errors.New("help shown")

// dialTemporal connects to the Temporal server named by TEMPORAL_ADDRESS, with a clear error
// naming the address when it cannot be reached.
func dialTemporal(ctx context.Context, env config.Env) (client.Client, error) {
	c, err := client.DialContext(ctx, client.Options{
		HostPort:  env.TemporalAddress,
		Namespace: env.TemporalNamespace,
		Logger:    quietLogger{},
		// large payloads compressed, as the worker writes them
		DataConverter: codec.DataConverter(),
	})
	if err != nil {
		return nil, fmt.Errorf("cannot reach Temporal at %s (set TEMPORAL_ADDRESS, or start it with 'make run'): %v", env.TemporalAddress, err)
	}
	return c, nil
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: starter [-v] COMMAND [flags]")
	fmt.Fprintln(w, "")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "")
	names = names[:0]
	for n := range aliases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s same as '%s'\n", n, strings.Join(aliases[n], " "))
	}
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "-v prints errors with their Temporal detail. Run 'starter COMMAND -h' for a command's flags. Environment: TEMPORAL_ADDRESS, SATED_DATA_DIR, OLLAMA_HOST, MEILI_URL (see README).")
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	verbose := false
	for len(args) > 0 && (args[0] == "-v" || args[0] == "--verbose") {
		verbose, args = true, args[1:]
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	args = expandAlias(args)
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "starter: unknown command %q\n", args[0])
		printUsage(stderr)
		return 2
	}
	env, err := config.FromEnv()
	if err != nil {
		// a bad environment is bad input, like a bad flag
		fmt.Fprintf(stderr, "starter %s: %s\n", args[0], err)
		return 2
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := cmd.run(ctx, env, args[1:]); err != nil {
		if errors.Is(err, errHelpShown) || errors.Is(err, flag.ErrHelp) {
			return 0
		}
		raw := strings.TrimSpace(err.Error())
		msg := strings.TrimSpace(readable(err))
		switch {
		case verbose && msg != raw:
			fmt.Fprintf(stderr, "starter %s: %s\n  detail: %s\n", args[0], msg, raw)
		case msg != raw:
			fmt.Fprintf(stderr, "starter %s: %s ('starter -v %s ...' shows the Temporal detail)\n", args[0], msg, args[0])
		default:
			fmt.Fprintf(stderr, "starter %s: %s\n", args[0], msg)
		}
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	return 0
}
