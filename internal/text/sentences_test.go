package text

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"

	"github.com/sated-dev/sated/internal/testenv"
)

var sentenceTests = []struct {
	name string
	in   string
	want []string
}{
	{"simple", "Go is fast. Rust is safe! Is Zig small? Yes.",
		[]string{"Go is fast.", "Rust is safe!", "Is Zig small?", "Yes."}},
	{"abbreviations", "Use a tool, e.g. Temporal. Compare Go vs. Rust, i.e. two languages. Mr. Pike agreed.",
		[]string{"Use a tool, e.g. Temporal.", "Compare Go vs. Rust, i.e. two languages.", "Mr. Pike agreed."}},
	{"etc. before lower case goes on, before a capital ends", "Flags, files, etc. are read first. Config, env, etc. Then the server starts.",
		[]string{"Flags, files, etc. are read first.", "Config, env, etc.", "Then the server starts."}},
	{"initials and dotted letters", "The U.S. Army funded J. R. Licklider. Then it grew.",
		[]string{"The U.S. Army funded J. R. Licklider.", "Then it grew."}},
	{"versions, decimals, files, calls", "Go 1.21.0 added min. Pi is 3.14 here. Edit main.go and call x.Close() first. Then run it.",
		[]string{"Go 1.21.0 added min.", "Pi is 3.14 here.", "Edit main.go and call x.Close() first.", "Then run it."}},
	{"version and call end sentences", "The latest release is v2.5.2. Call db.Close(). It flushes the WAL.",
		[]string{"The latest release is v2.5.2.", "Call db.Close().", "It flushes the WAL."}},
	{"No. before a number", "See No. 5 in the list. No. That is wrong.",
		[]string{"See No. 5 in the list.", "No.", "That is wrong."}},
	{"fig. and sec.", "As Fig. 3 and Sec. 2.1 show, it scales.", []string{"As Fig. 3 and Sec. 2.1 show, it scales."}},
	{"quotes and emphasis close sentences", `He said "it works." Then **it did.** Next one.`,
		[]string{`He said "it works."`, "Then **it did.**", "Next one."}},
	{"markdown marks kept", "A `*T` is a pointer. Use `**kwargs` and _init_ here. `x.Y()` returns *T.",
		[]string{"A `*T` is a pointer.", "Use `**kwargs` and _init_ here.", "`x.Y()` returns *T."}},
	{"no split inside code spans", "Run `fmt.Println(\"Hi. There\")` to print. Done.",
		[]string{"Run `fmt.Println(\"Hi. There\")` to print.", "Done."}},
	{"ellipsis", "It waited… Then it ended... and went on.", []string{"It waited…", "Then it ended... and went on."}},
	{"hard wrapped lines joined", "This line is wrapped by the\nauthor at seventy columns and\nGo keeps it whole.\nA new line starts here.",
		[]string{"This line is wrapped by the author at seventy columns and Go keeps it whole.", "A new line starts here."}},
	{"lines without end punctuation are blocks", "Prev Up Home Next\nIndex Maintenance\nThe VACUUM command rebuilds the file.",
		[]string{"Prev Up Home Next", "Index Maintenance", "The VACUUM command rebuilds the file."}},
	{"blank lines split", "First paragraph has no dot\n\nsecond starts lower", []string{"First paragraph has no dot", "second starts lower"}},
	{"list items", "Options:\n- `-v` prints more.\n- `-race` enables the\n  race detector.\n1. Install Go.\n2. Run it.",
		[]string{"Options:", "- `-v` prints more.", "- `-race` enables the race detector.", "1. Install Go.", "2. Run it."}},
	{"headings and tables", "## Garbage collection\nThe GC is concurrent.\n| GOGC | 100 |\n| off | none |",
		[]string{"## Garbage collection", "The GC is concurrent.", "| GOGC | 100 |", "| off | none |"}},
	{"code lines kept whole", "Set the value like this:\nx := compute(a, b)\nif err != nil {\n    return err\n}\nThat is all.",
		[]string{"Set the value like this:", "x := compute(a, b)", "if err != nil {", "return err", "}", "That is all."}},
	{"fenced code kept line by line", "Run:\n```sh\ngo test ./... -run 'X. Y'\n```\nIt passes.",
		[]string{"Run:", "```sh", "go test ./... -run 'X. Y'", "```", "It passes."}},
	{"shell and sql lines", "$ go build -o app .\nCREATE TABLE t(x);\nThe table is created.",
		[]string{"$ go build -o app .", "CREATE TABLE t(x);", "The table is created."}},
	{"inline code with operators is prose", "Use `x := 1` to declare. It infers int.", []string{"Use `x := 1` to declare.", "It infers int."}},
	{"cjk", "这是第一句话。这是第二句话。", []string{"这是第一句话。", "这是第二句话。"}},
	{"white space folded", "  Tabs\tand   spaces   fold.  ", []string{"Tabs and spaces fold."}},
	{"empty", "  \n\n ", nil},
}

func TestSentences(t *testing.T) {
	for _, tt := range sentenceTests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Sentences(tt.in))
		})
	}
}

// TestSentencesKeepEveryCharacter checks the quoting promise on every case: the sentences hold
// exactly the input's non-space characters, in order.
func TestSentencesKeepEveryCharacter(t *testing.T) {
	noSpace := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return r
		}, s)
	}
	for _, tt := range sentenceTests {
		assert.Equal(t, noSpace(tt.in), noSpace(strings.Join(Sentences(tt.in), "")), tt.name)
	}
}

func TestIsCode(t *testing.T) {
	for _, line := range []string{"x := 1", "if err != nil {", "}", "return nil;", "// comment", "$ go test", ">>> print(1)",
		"#include <stdio.h>", "ch <- v", "map[string]int{\"a\": 1}", "SELECT * FROM t WHERE a = (b) AND c[1] <> d;"} {
		assert.True(t, IsCode(line), line)
	}
	for _, line := range []string{"The GC runs concurrently.", "Use `x := 1` to declare.", "**Note:** the `*T` type (a pointer).",
		"Set GOGC=off to disable it.", "Options:"} {
		assert.False(t, IsCode(line), line)
	}
}

func BenchmarkSentences(b *testing.B) {
	text := strings.Repeat(stemCorpus+"\n\n", 4)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Sentences(text)
	}
}

// foldSpace is strings.Join(strings.Fields(s), " ") for any line: the Go docs' and made-up ones.
func TestFoldSpace(t *testing.T) {
	lines := []string{"", " ", "a", "a b", "a  b", " a", "a ", "a\tb", "a\u00a0b", "a\u3000b", "a\u0085b", "é b", "a b\r", "\x1cab"}
	raw, err := os.ReadFile(filepath.Join(testenv.GoDocDir(t), "go_spec.html"))
	if err != nil {
		t.Fatal(err)
	}
	lines = append(lines, strings.Split(string(raw), "\n")...)
	for _, l := range lines {
		if got, want := foldSpace(l), strings.Join(strings.Fields(l), " "); got != want {
			t.Errorf("foldSpace(%q) = %q, want %q", l, got, want)
		}
	}
}

// splitProse reads bytes, not a slice of runes: on every paragraph of the Go docs, and on
// made-up ones with abbreviations, CJK marks, code spans and invalid UTF-8, it splits as the
// rune-by-rune reading it replaced (splitProseRunes, kept here) did.
func TestSplitProseAsRuneByRune(t *testing.T) {
	paras := []string{"", "One. Two.", "e.g. this. And U.S. that. 1. Install it. No. 5 is here.", "它是。好的！真的？ Yes.",
		"Use `a. B` here. Then… more?! \"Quoted.\" Next (paren.) Last", "bad \xff byte. Next \xc3 one. End.", "x.Close() and main.go. Done."}
	for _, name := range []string{"go_mem.html", "go_spec.html", "godebug.md", "asm.html"} {
		raw, err := os.ReadFile(filepath.Join(testenv.GoDocDir(t), name))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range strings.Split(string(raw), "\n\n") {
			paras = append(paras, foldSpace(p))
		}
	}
	for _, p := range paras {
		got, want := splitProse(nil, p), splitProseRunes(nil, p)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("splitProse(%q) = %q, rune by rune %q", p, got, want)
		}
	}
}

func splitProseRunes(out []string, s string) []string {
	rs := []rune(s)
	add := func(out []string, rs []rune) []string {
		if s := strings.TrimSpace(string(rs)); s != "" {
			out = append(out, s)
		}
		return out
	}
	start := 0
	inCode := false
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '`' {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		if strings.ContainsRune("。！？", r) {
			out = add(out, rs[start:i+1])
			start = i + 1
			continue
		}
		if !strings.ContainsRune(".!?…", r) {
			continue
		}
		end := i + 1
		for end < len(rs) && strings.ContainsRune(".!?…", rs[end]) {
			end++
		}
		for end < len(rs) && strings.ContainsRune("\"'”’)]»*_", rs[end]) {
			end++
		}
		if end < len(rs) && rs[end] != ' ' {
			i = end - 1
			continue
		}
		next := end
		for next < len(rs) && rs[next] == ' ' {
			next++
		}
		if next < len(rs) && !startsSentence(rs[next]) {
			i = end - 1
			continue
		}
		if r == '.' && end == i+1 && next < len(rs) && notAnEnd(string(rs[start:i]), rs[next]) {
			continue
		}
		out = add(out, rs[start:end])
		start = end
		i = end - 1
	}
	return add(out, rs[start:])
}

// SentenceBlocks numbers each sentence's block: a paragraph's sentences share one, each list
// item and code line has its own, and the paragraph after a list another.
func TestSentenceBlocks(t *testing.T) {
	for _, c := range []struct {
		in    string
		sents []string
		want  []int
	}{
		{"One. Two.\n\nThree.", []string{"One.", "Two.", "Three."}, []int{0, 0, 1}},
		{"Do this:\n\n- First step. It is short.\n- Second step.\n\nAfter the list.",
			[]string{"Do this:", "- First step.", "It is short.", "- Second step.", "After the list."}, []int{0, 1, 1, 2, 3}},
		{"Run it with\n\n$ git restore --staged :/\n\nThen commit.", []string{"Run it with", "$ git restore --staged :/", "Then commit."}, []int{0, 1, 2}},
		{"", nil, nil},
	} {
		sents, blocks := SentenceBlocks(c.in)
		if !slices.Equal(sents, c.sents) || !slices.Equal(blocks, c.want) || !slices.Equal(sents, Sentences(c.in)) {
			t.Errorf("SentenceBlocks(%q) = %q %v, want %q %v", c.in, sents, blocks, c.sents, c.want)
		}
	}
}
