// Package meilitest is a loopback fake of the Meilisearch endpoints sated uses, with the
// request and response shapes of the Meilisearch documentation: asynchronous tasks that go
// enqueued → succeeded/failed, error objects {message, code, type, link} with 4xx statuses,
// and a simple word-matching ranker standing in for Meilisearch's relevancy.
package meilitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Server is the fake. Start it with New; it stops with the test.
type Server struct {
	*httptest.Server
	key string

	mu      sync.Mutex
	indexes map[string]*index
	tasks   []*task
}

type index struct {
	UID        string    `json:"uid"`
	PrimaryKey *string   `json:"primaryKey"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	searchable []string
	filterable []string
	docs       map[string]map[string]any
	order      []string
}

type apiError struct {
	Message string `json:"message"`
	Code    string `json:"code"`
	Type    string `json:"type"`
	Link    string `json:"link"`
}

type task struct {
	UID        int64          `json:"uid"`
	BatchUID   *int64         `json:"batchUid"`
	IndexUID   string         `json:"indexUid"`
	Status     string         `json:"status"`
	Type       string         `json:"type"`
	CanceledBy *int64         `json:"canceledBy"`
	Details    map[string]any `json:"details"`
	Error      *apiError      `json:"error"`
	Duration   *string        `json:"duration"`
	EnqueuedAt time.Time      `json:"enqueuedAt"`
	StartedAt  *time.Time     `json:"startedAt"`
	FinishedAt *time.Time     `json:"finishedAt"`
	polled     bool
	apply      func() *apiError
}

// TB is the part of testing.TB the server needs.
type TB interface {
	Cleanup(func())
}

// New starts a fake on 127.0.0.1. A non-empty key is required as "Authorization: Bearer key".
func New(t TB, key string) *Server {
	s := &Server{key: key, indexes: map[string]*index{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "available"})
	})
	mux.HandleFunc("POST /indexes", s.auth(s.createIndex))
	mux.HandleFunc("GET /indexes", s.auth(s.listIndexes))
	mux.HandleFunc("GET /indexes/{uid}", s.auth(s.getIndex))
	mux.HandleFunc("DELETE /indexes/{uid}", s.auth(s.deleteIndex))
	mux.HandleFunc("GET /indexes/{uid}/settings", s.auth(s.getSettings))
	mux.HandleFunc("PATCH /indexes/{uid}/settings", s.auth(s.updateSettings))
	mux.HandleFunc("POST /indexes/{uid}/documents", s.auth(s.addDocuments))
	mux.HandleFunc("GET /indexes/{uid}/documents/{id}", s.auth(s.getDocument))
	mux.HandleFunc("DELETE /indexes/{uid}/documents/{id}", s.auth(s.deleteDocument))
	mux.HandleFunc("POST /indexes/{uid}/documents/delete-batch", s.auth(s.deleteBatch))
	mux.HandleFunc("POST /indexes/{uid}/documents/delete", s.auth(s.deleteByFilter))
	mux.HandleFunc("POST /indexes/{uid}/search", s.auth(s.search))
	mux.HandleFunc("GET /tasks/{uid}", s.auth(s.getTask))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, http.StatusNotFound, "not_found", "invalid_request", "Not found.")
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func errObj(code, typ, msg string) *apiError {
	return &apiError{Message: msg, Code: code, Type: typ, Link: "https://docs.meilisearch.com/errors#" + code}
}

func writeErr(w http.ResponseWriter, status int, code, typ, msg string) {
	writeJSON(w, status, errObj(code, typ, msg))
}

func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.key != "" {
			got := r.Header.Get("Authorization")
			if got == "" {
				writeErr(w, http.StatusUnauthorized, "missing_authorization_header", "auth", "The Authorization header is missing. It must use the bearer authorization method.")
				return
			}
			if got != "Bearer "+s.key {
				writeErr(w, http.StatusForbidden, "invalid_api_key", "auth", "The provided API key is invalid.")
				return
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		h(w, r)
	}
}

// readBody decodes a JSON body, answering the documented errors for a wrong content type,
// an empty body or malformed JSON. It reports whether the handler may go on.
func readBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeErr(w, http.StatusUnsupportedMediaType, "invalid_content_type", "invalid_request",
			fmt.Sprintf("The Content-Type `%s` is invalid. Accepted values for the Content-Type header are: `application/json`, `application/x-ndjson`, `text/csv`", ct))
		return false
	}
	b, err := io.ReadAll(r.Body)
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		writeErr(w, http.StatusBadRequest, "missing_payload", "invalid_request", "A json payload is missing.")
		return false
	}
	if err := json.Unmarshal(b, v); err != nil {
		writeErr(w, http.StatusBadRequest, "malformed_payload", "invalid_request", "The json payload provided is malformed. `"+err.Error()+"`.")
		return false
	}
	return true
}

var uidRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,400}$`)

// enqueue records a task and answers 202 with the summarized task object.
func (s *Server) enqueue(w http.ResponseWriter, indexUID, typ string, details map[string]any, apply func() *apiError) {
	t := &task{UID: int64(len(s.tasks)), IndexUID: indexUID, Status: "enqueued", Type: typ, Details: details, EnqueuedAt: time.Now().UTC(), apply: apply}
	s.tasks = append(s.tasks, t)
	writeJSON(w, http.StatusAccepted, map[string]any{
		"taskUid": t.UID, "indexUid": indexUID, "status": t.Status, "type": typ, "enqueuedAt": t.EnqueuedAt,
	})
}

// getTask shows a task as still enqueued the first time it is polled, then processes every
// task up to it in order, as Meilisearch's queue does.
func (s *Server) getTask(w http.ResponseWriter, r *http.Request) {
	uid, err := strconv.ParseInt(r.PathValue("uid"), 10, 64)
	if err != nil {
		writeErr(w, http.StatusBadRequest, "invalid_task_uids", "invalid_request", "Invalid value in parameter `taskUid`.")
		return
	}
	if uid < 0 || uid >= int64(len(s.tasks)) {
		writeErr(w, http.StatusNotFound, "task_not_found", "invalid_request", fmt.Sprintf("Task `%d` not found.", uid))
		return
	}
	t := s.tasks[uid]
	if t.Status == "enqueued" {
		if !t.polled {
			t.polled = true
		} else {
			for _, p := range s.tasks[:uid+1] {
				s.process(p)
			}
		}
	}
	writeJSON(w, http.StatusOK, t)
}

func (s *Server) process(t *task) {
	if t.Status != "enqueued" {
		return
	}
	start := time.Now().UTC()
	t.StartedAt = &start
	t.Error = t.apply()
	t.Status = "succeeded"
	if t.Error != nil {
		t.Status = "failed"
	}
	end := time.Now().UTC()
	t.FinishedAt = &end
	d := fmt.Sprintf("PT%.6fS", end.Sub(start).Seconds())
	t.Duration = &d
	t.BatchUID = &t.UID
}

func (s *Server) indexOr404(w http.ResponseWriter, uid string) *index {
	ix := s.indexes[uid]
	if ix == nil {
		writeErr(w, http.StatusNotFound, "index_not_found", "invalid_request", fmt.Sprintf("Index `%s` not found.", uid))
	}
	return ix
}

func (s *Server) newIndex(uid string, pk *string) *index {
	now := time.Now().UTC()
	ix := &index{UID: uid, PrimaryKey: pk, CreatedAt: now, UpdatedAt: now, searchable: []string{"*"}, docs: map[string]map[string]any{}}
	s.indexes[uid] = ix
	return ix
}

func (s *Server) createIndex(w http.ResponseWriter, r *http.Request) {
	var req struct {
		UID        string  `json:"uid"`
		PrimaryKey *string `json:"primaryKey"`
	}
	if !readBody(w, r, &req) {
		return
	}
	if req.UID == "" {
		writeErr(w, http.StatusBadRequest, "missing_index_uid", "invalid_request", "Missing field `uid`")
		return
	}
	if !uidRE.MatchString(req.UID) {
		writeErr(w, http.StatusBadRequest, "invalid_index_uid", "invalid_request",
			fmt.Sprintf("`%s` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 512 bytes.", req.UID))
		return
	}
	if req.PrimaryKey != nil && *req.PrimaryKey == "" {
		req.PrimaryKey = nil
	}
	s.enqueue(w, req.UID, "indexCreation", map[string]any{"primaryKey": req.PrimaryKey}, func() *apiError {
		if s.indexes[req.UID] != nil {
			return errObj("index_already_exists", "invalid_request", fmt.Sprintf("Index `%s` already exists.", req.UID))
		}
		s.newIndex(req.UID, req.PrimaryKey)
		return nil
	})
}

func (s *Server) listIndexes(w http.ResponseWriter, r *http.Request) {
	uids := make([]string, 0, len(s.indexes))
	for uid := range s.indexes {
		uids = append(uids, uid)
	}
	sort.Strings(uids)
	res := make([]*index, 0, len(uids))
	for _, uid := range uids {
		res = append(res, s.indexes[uid])
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": res, "offset": 0, "limit": 20, "total": len(res)})
}

func (s *Server) getIndex(w http.ResponseWriter, r *http.Request) {
	if ix := s.indexOr404(w, r.PathValue("uid")); ix != nil {
		writeJSON(w, http.StatusOK, ix)
	}
}

func (s *Server) deleteIndex(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	s.enqueue(w, uid, "indexDeletion", map[string]any{"deletedDocuments": 0}, func() *apiError {
		if s.indexes[uid] == nil {
			return errObj("index_not_found", "invalid_request", fmt.Sprintf("Index `%s` not found.", uid))
		}
		delete(s.indexes, uid)
		return nil
	})
}

func (s *Server) getSettings(w http.ResponseWriter, r *http.Request) {
	if ix := s.indexOr404(w, r.PathValue("uid")); ix != nil {
		writeJSON(w, http.StatusOK, map[string]any{"searchableAttributes": ix.searchable, "filterableAttributes": nonNil(ix.filterable)})
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// knownSettings are the settings fields Meilisearch accepts; others are a 400, as there.
var knownSettings = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`displayedAttributes searchableAttributes filterableAttributes sortableAttributes
		rankingRules stopWords nonSeparatorTokens separatorTokens dictionary synonyms distinctAttribute proximityPrecision
		typoTolerance faceting pagination embedders searchCutoffMs localizedAttributes facetSearch prefixSearch chat`) {
		knownSettings[k] = true
	}
}

func (s *Server) updateSettings(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	var raw map[string]json.RawMessage
	if !readBody(w, r, &raw) {
		return
	}
	var searchable, filterable []string
	for k, v := range raw {
		if !knownSettings[k] {
			writeErr(w, http.StatusBadRequest, "bad_request", "invalid_request", fmt.Sprintf("Unknown field `%s`", k))
			return
		}
		var dst *[]string
		switch k {
		case "searchableAttributes":
			dst = &searchable
		case "filterableAttributes":
			dst = &filterable
		default:
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil {
			writeErr(w, http.StatusBadRequest, "invalid_settings_"+snake(k), "invalid_request", fmt.Sprintf("Invalid value type at `.%s`: expected an array of strings.", k))
			return
		}
	}
	s.enqueue(w, uid, "settingsUpdate", map[string]any{"searchableAttributes": searchable, "filterableAttributes": filterable}, func() *apiError {
		ix := s.indexes[uid]
		if ix == nil {
			ix = s.newIndex(uid, nil)
		}
		if searchable != nil {
			ix.searchable = searchable
		}
		if filterable != nil {
			ix.filterable = filterable
		}
		ix.UpdatedAt = time.Now().UTC()
		return nil
	})
}

func snake(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// docID renders a primary-key value as Meilisearch accepts it: a string of [A-Za-z0-9_-] or an integer.
func docID(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, uidRE.MatchString(x) && len(x) <= 511
	case float64:
		if x == float64(int64(x)) && x >= 0 {
			return strconv.FormatInt(int64(x), 10), true
		}
	}
	return fmt.Sprint(v), false
}

func (s *Server) addDocuments(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	var docs []map[string]any
	var body json.RawMessage
	if !readBody(w, r, &body) {
		return
	}
	if err := json.Unmarshal(body, &docs); err != nil {
		var one map[string]any
		if err := json.Unmarshal(body, &one); err != nil {
			writeErr(w, http.StatusBadRequest, "malformed_payload", "invalid_request", "The `json` payload provided is malformed. `Couldn't serialize document value`.")
			return
		}
		docs = []map[string]any{one}
	}
	pkParam := r.URL.Query().Get("primaryKey")
	s.enqueue(w, uid, "documentAdditionOrUpdate", map[string]any{"receivedDocuments": len(docs), "indexedDocuments": nil}, func() *apiError {
		ix := s.indexes[uid]
		if ix == nil {
			ix = s.newIndex(uid, nil)
		}
		switch {
		case ix.PrimaryKey != nil && pkParam != "" && pkParam != *ix.PrimaryKey:
			return errObj("index_primary_key_already_exists", "invalid_request", fmt.Sprintf("Index `%s`: Index already has a primary key: `%s`.", uid, *ix.PrimaryKey))
		case ix.PrimaryKey == nil && pkParam != "":
			ix.PrimaryKey = &pkParam
		case ix.PrimaryKey == nil:
			pk, err := inferKey(docs)
			if err != nil {
				return err
			}
			ix.PrimaryKey = &pk
		}
		pk := *ix.PrimaryKey
		ids := make([]string, len(docs))
		for i, d := range docs {
			v, ok := d[pk]
			if !ok {
				return errObj("missing_document_id", "invalid_request", fmt.Sprintf("Document doesn't have a `%s` attribute: `%s`.", pk, mustJSON(d)))
			}
			id, valid := docID(v)
			if !valid {
				return errObj("invalid_document_id", "invalid_request", fmt.Sprintf("Document identifier `%s` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.", mustJSON(v)))
			}
			ids[i] = id
		}
		for i, d := range docs {
			if _, ok := ix.docs[ids[i]]; !ok {
				ix.order = append(ix.order, ids[i])
			}
			ix.docs[ids[i]] = d
		}
		ix.UpdatedAt = time.Now().UTC()
		return nil
	})
}

func inferKey(docs []map[string]any) (string, *apiError) {
	var cands []string
	if len(docs) > 0 {
		for k := range docs[0] {
			if strings.HasSuffix(strings.ToLower(k), "id") {
				cands = append(cands, k)
			}
		}
	}
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		return "", errObj("index_primary_key_no_candidate_found", "invalid_request", "The primary key inference failed as the engine did not find any field ending with `id` in its name. Please specify the primary key manually using the `primaryKey` query parameter.")
	default:
		sort.Strings(cands)
		return "", errObj("index_primary_key_multiple_candidates_found", "invalid_request", fmt.Sprintf("The primary key inference failed as the engine found %d fields ending with `id` in their names: %s. Please specify the primary key manually using the `primaryKey` query parameter.", len(cands), strings.Join(cands, ", ")))
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (s *Server) getDocument(w http.ResponseWriter, r *http.Request) {
	ix := s.indexOr404(w, r.PathValue("uid"))
	if ix == nil {
		return
	}
	d, ok := ix.docs[r.PathValue("id")]
	if !ok {
		writeErr(w, http.StatusNotFound, "document_not_found", "invalid_request", fmt.Sprintf("Document `%s` not found.", r.PathValue("id")))
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (s *Server) removeDocs(uid string, ids []string) func() *apiError {
	return func() *apiError {
		ix := s.indexes[uid]
		if ix == nil {
			return errObj("index_not_found", "invalid_request", fmt.Sprintf("Index `%s` not found.", uid))
		}
		for _, id := range ids {
			delete(ix.docs, id)
		}
		kept := ix.order[:0]
		for _, id := range ix.order {
			if _, ok := ix.docs[id]; ok {
				kept = append(kept, id)
			}
		}
		ix.order = kept
		return nil
	}
}

func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	s.enqueue(w, uid, "documentDeletion", map[string]any{"providedIds": 1}, s.removeDocs(uid, []string{r.PathValue("id")}))
}

func (s *Server) deleteBatch(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	var ids []any
	if !readBody(w, r, &ids) {
		return
	}
	strs := make([]string, len(ids))
	for i, v := range ids {
		strs[i], _ = docID(v)
	}
	s.enqueue(w, uid, "documentDeletion", map[string]any{"providedIds": len(ids)}, s.removeDocs(uid, strs))
}

// filterRE is the one filter form the fake understands: attribute = "value".
var filterRE = regexp.MustCompile(`^\s*([A-Za-z0-9_.]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(\S+))\s*$`)

func (s *Server) deleteByFilter(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	var req struct {
		Filter any `json:"filter"`
	}
	if !readBody(w, r, &req) {
		return
	}
	f, _ := req.Filter.(string)
	m := filterRE.FindStringSubmatch(f)
	if m == nil {
		writeErr(w, http.StatusBadRequest, "invalid_document_filter", "invalid_request", fmt.Sprintf("Was expecting an operation `=`, `!=`, `>=`, `>`, `<=`, `<`, `IN`, `NOT IN`, `TO`, `EXISTS`, `NOT EXISTS`, `IS NULL`, `IS NOT NULL`, `IS EMPTY`, `IS NOT EMPTY`, `_geoRadius`, or `_geoBoundingBox` at `%s`.", f))
		return
	}
	attr, val := m[1], m[2]+m[3]+m[4]
	val = strings.NewReplacer(`\"`, `"`, `\'`, `'`, `\\`, `\`).Replace(val)
	s.enqueue(w, uid, "documentDeletion", map[string]any{"originalFilter": mustJSON(f)}, func() *apiError {
		ix := s.indexes[uid]
		if ix == nil {
			return errObj("index_not_found", "invalid_request", fmt.Sprintf("Index `%s` not found.", uid))
		}
		if !contains(ix.filterable, attr) {
			return errObj("invalid_document_filter", "invalid_request", fmt.Sprintf("Attribute `%s` is not filterable. Available filterable attributes are: `%s`.", attr, strings.Join(ix.filterable, ", ")))
		}
		var ids []string
		for id, d := range ix.docs {
			if fmt.Sprint(d[attr]) == val {
				ids = append(ids, id)
			}
		}
		return s.removeDocs(uid, ids)()
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// knownSearch are the search parameters Meilisearch accepts; others are a 400, as there.
var knownSearch = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`q offset limit page hitsPerPage attributesToRetrieve retrieveVectors attributesToCrop
		cropLength cropMarker attributesToHighlight highlightPreTag highlightPostTag showMatchesPosition showRankingScore
		showRankingScoreDetails showPerformanceDetails filter sort distinct facets matchingStrategy attributesToSearchOn
		rankingScoreThreshold locales hybrid vector media personalize`) {
		knownSearch[k] = true
	}
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	var raw map[string]json.RawMessage
	if !readBody(w, r, &raw) {
		return
	}
	for k := range raw {
		if !knownSearch[k] {
			writeErr(w, http.StatusBadRequest, "bad_request", "invalid_request", fmt.Sprintf("Unknown field `%s`", k))
			return
		}
	}
	var req struct {
		Q                    string   `json:"q"`
		Offset               int      `json:"offset"`
		Limit                *int     `json:"limit"`
		AttributesToRetrieve []string `json:"attributesToRetrieve"`
		AttributesToCrop     []string `json:"attributesToCrop"`
		CropLength           int      `json:"cropLength"`
		CropMarker           *string  `json:"cropMarker"`
		ShowRankingScore     bool     `json:"showRankingScore"`
		Filter               any      `json:"filter"`
	}
	b, _ := json.Marshal(raw)
	if err := json.Unmarshal(b, &req); err != nil {
		writeErr(w, http.StatusBadRequest, "bad_request", "invalid_request", err.Error())
		return
	}
	if req.Filter != nil {
		writeErr(w, http.StatusBadRequest, "invalid_search_filter", "invalid_request", "meilitest: search filters are not implemented")
		return
	}
	limit := 20
	if req.Limit != nil {
		if *req.Limit < 0 {
			writeErr(w, http.StatusBadRequest, "invalid_search_limit", "invalid_request", "Invalid value in parameter `limit`: could not parse as a positive integer")
			return
		}
		limit = *req.Limit
	}
	ix := s.indexOr404(w, r.PathValue("uid"))
	if ix == nil {
		return
	}
	terms := words(req.Q)
	type scored struct {
		id    string
		score float64
	}
	var hits []scored
	for _, id := range ix.order {
		d := ix.docs[id]
		if len(terms) == 0 {
			hits = append(hits, scored{id, 1})
			continue
		}
		if sc := match(terms, ix.searchText(d)); sc > 0 {
			hits = append(hits, scored{id, sc})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	total := len(hits)
	hits = hits[min(req.Offset, len(hits)):]
	hits = hits[:min(limit, len(hits))]
	marker := "…"
	if req.CropMarker != nil {
		marker = *req.CropMarker
	}
	if req.CropLength == 0 {
		req.CropLength = 10
	}
	out := make([]map[string]any, 0, len(hits))
	for _, h := range hits {
		d := ix.docs[h.id]
		hit := map[string]any{}
		for k, v := range d {
			if len(req.AttributesToRetrieve) == 0 || contains(req.AttributesToRetrieve, "*") || contains(req.AttributesToRetrieve, k) {
				hit[k] = v
			}
		}
		if len(req.AttributesToCrop) > 0 {
			formatted := map[string]any{}
			for k, v := range hit {
				formatted[k] = v
			}
			for _, k := range req.AttributesToCrop {
				if str, ok := d[k].(string); ok {
					formatted[k] = crop(str, terms, req.CropLength, marker)
				}
			}
			hit["_formatted"] = formatted
		}
		if req.ShowRankingScore {
			hit["_rankingScore"] = h.score
		}
		out = append(out, hit)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"hits": out, "query": req.Q, "processingTimeMs": 0, "limit": limit, "offset": req.Offset, "estimatedTotalHits": total,
	})
}

func (ix *index) searchText(d map[string]any) []string {
	var out []string
	for k, v := range d {
		if str, ok := v.(string); ok && (contains(ix.searchable, "*") || contains(ix.searchable, k)) {
			out = append(out, words(str)...)
		}
	}
	return out
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// match is the share of query words found in the document; the last query word also matches
// as a prefix, as in Meilisearch's prefix search.
func match(terms, doc []string) float64 {
	set := map[string]bool{}
	for _, w := range doc {
		set[w] = true
	}
	n := 0
	for i, t := range terms {
		if set[t] {
			n++
			continue
		}
		if i == len(terms)-1 {
			for _, w := range doc {
				if strings.HasPrefix(w, t) {
					n++
					break
				}
			}
		}
	}
	return float64(n) / float64(len(terms))
}

// crop keeps length words starting a little before the first query word found.
func crop(s string, terms []string, length int, marker string) string {
	fields := strings.Fields(s)
	if len(fields) <= length {
		return s
	}
	start := 0
	for i, f := range fields {
		if w := words(f); len(w) > 0 && contains(terms, w[0]) {
			start = max(0, i-length/4)
			break
		}
	}
	end := min(len(fields), start+length)
	out := strings.Join(fields[start:end], " ")
	if start > 0 {
		out = marker + out
	}
	if end < len(fields) {
		out += marker
	}
	return out
}
