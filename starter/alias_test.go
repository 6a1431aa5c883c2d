package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAliasesExpandToTheirCommands(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"start", "What is WAL?", "--max-rounds", "3"}, []string{"research", "What is WAL?", "--max-rounds", "3"}},
		{[]string{"approve", "exp-1"}, []string{"expansion", "approve", "exp-1"}},
		{[]string{"reject", "exp-1", "--reason", "too broad"}, []string{"expansion", "reject", "exp-1", "--reason", "too broad"}},
		{[]string{"research", "q"}, []string{"research", "q"}},
		{[]string{"watch"}, []string{"watch"}},
		{nil, nil},
	} {
		require.Equal(t, tc.want, expandAlias(tc.in), "%q", tc.in)
	}
	// every alias names a registered command, so 'start' can never point nowhere
	for name, to := range aliases {
		_, ok := commands[to[0]]
		require.True(t, ok, "alias %s -> %v", name, to)
		_, clash := commands[name]
		require.False(t, clash, "alias %s hides a command", name)
	}
}

func TestAliasesRunAndAreListed(t *testing.T) {
	var out, errs bytes.Buffer
	stdout, stderr = &out, &errs
	defer func() { stdout, stderr = os.Stdout, os.Stderr }()
	// 'start' with an empty question fails as 'research' does: bad input, exit 2, one line,
	// before any server is dialled
	require.Equal(t, 2, run([]string{"start", ""}))
	require.Contains(t, errs.String(), "starter research:")
	require.Equal(t, 1, strings.Count(strings.TrimSpace(errs.String()), "\n")+1, errs.String())
	require.Equal(t, 0, run([]string{"help"}))
	require.Contains(t, out.String(), "start       same as 'research'")
	require.Contains(t, out.String(), "approve     same as 'expansion approve'")
}
