package text

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"
)

func TestStem(t *testing.T) {
	tests := []struct{ in, want string }{
		// Porter's own examples, step by step
		{"caresses", "caress"}, {"ponies", "poni"}, {"ties", "ti"}, {"caress", "caress"}, {"cats", "cat"},
		{"feed", "feed"}, {"agreed", "agre"}, {"plastered", "plaster"}, {"bled", "bled"},
		{"motoring", "motor"}, {"sing", "sing"}, {"conflated", "conflat"}, {"troubled", "troubl"},
		{"sized", "size"}, {"hopping", "hop"}, {"tanned", "tan"}, {"falling", "fall"},
		{"hissing", "hiss"}, {"fizzed", "fizz"}, {"failing", "fail"}, {"filing", "file"},
		{"happy", "happi"}, {"sky", "sky"}, {"relational", "relat"}, {"conditional", "condit"},
		{"rational", "ration"}, {"valenci", "valenc"}, {"digitizer", "digit"}, {"conformabli", "conform"},
		{"radicalli", "radic"}, {"differentli", "differ"}, {"vileli", "vile"}, {"analogousli", "analog"},
		{"vietnamization", "vietnam"}, {"predication", "predic"}, {"operator", "oper"},
		{"feudalism", "feudal"}, {"decisiveness", "decis"}, {"hopefulness", "hope"},
		{"callousness", "callous"}, {"formaliti", "formal"}, {"sensitiviti", "sensit"},
		{"sensibiliti", "sensibl"}, {"triplicate", "triplic"}, {"formative", "form"},
		{"formalize", "formal"}, {"electriciti", "electr"}, {"electrical", "electr"},
		{"hopeful", "hope"}, {"goodness", "good"}, {"revival", "reviv"}, {"allowance", "allow"},
		{"inference", "infer"}, {"airliner", "airlin"}, {"adjustable", "adjust"},
		{"defensible", "defens"}, {"irritant", "irrit"}, {"replacement", "replac"},
		{"adjustment", "adjust"}, {"dependent", "depend"}, {"adoption", "adopt"},
		{"homologou", "homolog"}, {"communism", "commun"}, {"activate", "activ"},
		{"angulariti", "angular"}, {"homologous", "homolog"}, {"effective", "effect"},
		{"bowdlerize", "bowdler"}, {"probate", "probat"}, {"rate", "rate"}, {"cease", "ceas"},
		{"controll", "control"}, {"roll", "roll"},
		// technical vocabulary
		{"goroutines", "goroutin"}, {"indexes", "index"}, {"indexing", "index"}, {"retries", "retri"},
		{"retried", "retri"}, {"rounds", "round"}, {"configuration", "configur"}, {"compiled", "compil"},
		// short, long and compound tokens
		{"go", "go"}, {"is", "is"}, {strings.Repeat("ab", 33) + "s", strings.Repeat("ab", 33) + "s"},
		{"sync.mutexes", "sync.mutex"}, {"read-only", "read-onli"}, {"go1.21", "go1.21"},
		{"x86_64", "x86_64"}, {"utf-8", "utf-8"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Stem(tt.in), tt.in)
	}
}

// TestStemMatchesFTS5 checks Stem against the porter tokenizer of the SQLite the corpus and
// memory use, word by word: query terms stemmed here must equal the terms FTS5 indexed.
func TestStemMatchesFTS5(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = db.Exec(`CREATE VIRTUAL TABLE t USING fts5(w, tokenize='porter unicode61');
		CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`)
	require.NoError(t, err)
	words := Distinct(Words(stemCorpus))
	var plain []string
	for _, w := range words {
		if strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
			plain = append(plain, w) // FTS5 splits compounds and folds diacritics itself
		}
	}
	require.Greater(t, len(plain), 250)
	for i, w := range plain {
		_, err := db.Exec(`INSERT INTO t(rowid, w) VALUES (?, ?)`, i+1, w)
		require.NoError(t, err)
	}
	rows, err := db.Query(`SELECT doc, term FROM v`)
	require.NoError(t, err)
	defer rows.Close()
	n := 0
	for rows.Next() {
		var doc int
		var term string
		require.NoError(t, rows.Scan(&doc, &term))
		assert.Equal(t, term, Stem(plain[doc-1]), plain[doc-1])
		n++
	}
	require.NoError(t, rows.Err())
	require.Equal(t, len(plain), n)
}

// stemCorpus is technical prose with many suffixes: Go and SQLite documentation and the
// vocabulary of Porter's paper.
const stemCorpus = `
The Go memory model specifies the conditions under which reads of a variable in one goroutine
can be guaranteed to observe values produced by writes to the same variable in a different
goroutine. Programs that modify data being simultaneously accessed by multiple goroutines must
serialize such access. To serialize access, protect the data with channel operations or other
synchronization primitives such as those in the sync and sync/atomic packages. If you must read
the rest of this document to understand the behavior of your program, you are being too clever.
Don't be clever. Informally, a data race is defined as a simultaneous write to a memory location
happening concurrently with another read or write to that same location, unless all the accesses
involved are atomic data accesses as provided by the sync/atomic package. Implementation
restrictions for programs containing data races: any implementation can, upon detecting a data
race, report the race and halt execution of the program. Implementations using ThreadSanitizer
provide exactly this behavior. The garbage collector runs concurrently with mutator threads,
is type accurate, allows multiple GC threads to run in parallel, and uses a write barrier.
Setting GOGC=off disables the garbage collector entirely. The runtime reduces heap growth
sensibly, tuning pacing parameters adaptively; deallocation, reallocation, fragmentation,
scavenging and relational conditional rational valency digitizer conformably radically
differently vilely analogously vietnamization predication operator feudalism decisiveness
hopefulness callousness formality sensitivity sensibility triplicate formative formalize
electricity electrical hopeful goodness revival allowance inference airliner adjustable
defensible irritant replacement adjustment dependent adoption homologous communism activate
angularity effective bowdlerize probate rate cease controlling rolling caresses ponies ties
caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping tanned
falling hissing fizzed failing filing happy sky generalizations oscillators abilities ied
ies eed bed sses indexes indexing retries retried rounds configuration compiled queries
queried querying tokenizer tokenizers tokenization stemming stemmer stemmed vacuuming vacuumed
checkpointing checkpoints journaling transactional transactions isolation serializable
pragmas pragma virtual tables contentless externally triggers trigger triggered collations
collating affinity affinities declaratively normalization normalized denormalized agreement
ideally ally ably eying dying lying tying crying skies flies flying flier happiness sadness
careful carefully carelessness hopelessness meaningful meaningless argument arguments arguing
argued possibility possibly possible responsibility responsible irresponsibly encryption
decrypted encrypting authentication authenticate authenticated authorization authorizing
yyy yes yesterday youth by my cry`

func TestStemCachedIsStem(t *testing.T) {
	for _, w := range []string{"running", "caresses", "sync.mutexes", "read-only", "go1.21", "ab", "running"} {
		if got, want := StemCached(w), Stem(w); got != want {
			t.Errorf("StemCached(%q) = %q, want %q", w, got, want)
		}
	}
}
