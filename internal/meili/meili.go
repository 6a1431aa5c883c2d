// Package meili wraps meilisearch-go for sated: the corpus search provider and the memory's
// full-text backend. The client's own retries are off (Temporal retries), every write waits
// for its task and checks the task's status, and errors are sorted into "unavailable" (retry,
// then fall back) and "bad input" (never retry).
package meili

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/meilisearch/meilisearch-go"

	"github.com/sated-dev/sated/internal/search"
)

// Client talks to one Meilisearch server.
type Client struct {
	sm  meilisearch.ServiceManager
	url string
	// Poll is how often a pending task is checked.
	Poll time.Duration
}

// New makes a client with retries disabled and a bounded HTTP timeout.
func New(url, apiKey string) *Client {
	return &Client{
		sm: meilisearch.New(url,
			meilisearch.WithAPIKey(apiKey),
			meilisearch.DisableRetries(),
			meilisearch.WithCustomClient(&http.Client{Timeout: 30 * time.Second}),
		),
		url:  url,
		Poll: 50 * time.Millisecond,
	}
}

// URL is the server address, for messages.
func (c *Client) URL() string { return c.url }

// ErrUnavailable marks a server that cannot be reached or answers 5xx.
var ErrUnavailable = errors.New("meilisearch unavailable")

// ErrBadInput is search.ErrBadInput: 4xx answers and failed tasks caused by the request.
var ErrBadInput = search.ErrBadInput

// IsUnavailable reports whether err means the server could not be reached (retry, then fall back).
func IsUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) }

// classify wraps a client error with ErrUnavailable or ErrBadInput where that applies.
func (c *Client) classify(op string, err error) error {
	if err == nil {
		return nil
	}
	var me *meilisearch.Error
	if errors.As(err, &me) {
		switch {
		case me.ErrCode == meilisearch.CommunicationError || me.ErrCode == meilisearch.TimeoutError || me.ErrCode == meilisearch.MaxRetriesExceeded:
			return fmt.Errorf("meilisearch %s at %s: %w: %v", op, c.url, ErrUnavailable, err)
		case me.StatusCode >= 500:
			return fmt.Errorf("meilisearch %s at %s: %w: status %d: %s", op, c.url, ErrUnavailable, me.StatusCode, me.APIError.Message)
		case me.StatusCode >= 400:
			return fmt.Errorf("meilisearch %s: %w: status %d %s: %s", op, ErrBadInput, me.StatusCode, me.APIError.Code, me.APIError.Message)
		}
	}
	return fmt.Errorf("meilisearch %s at %s: %w", op, c.url, err)
}

// Health checks that the server answers "available".
func (c *Client) Health(ctx context.Context) error {
	h, err := c.sm.Health(ctx)
	if err != nil {
		return c.classify("health", err)
	}
	if h.Status != "available" {
		return fmt.Errorf("meilisearch health at %s: %w: status %q", c.url, ErrUnavailable, h.Status)
	}
	return nil
}

// wait blocks until the task finishes and turns a failed task into an error (WaitForTask
// itself returns a failed task with a nil error), except for the error codes in allow.
func (c *Client) wait(ctx context.Context, op string, info *meilisearch.TaskInfo, allow ...meilisearch.APIErrCode) error {
	task, err := c.sm.WaitForTask(ctx, info.TaskUID, c.Poll)
	if err != nil {
		return c.classify(op+" (wait for task)", err)
	}
	switch task.Status {
	case meilisearch.TaskStatusSucceeded:
		return nil
	case meilisearch.TaskStatusFailed:
		e := task.Error
		for _, code := range allow {
			if e.Code == code {
				return nil
			}
		}
		if e.Type == "internal" || e.Type == "system" {
			return fmt.Errorf("meilisearch %s: task %d failed: %s: %s", op, task.UID, e.Code, e.Message)
		}
		return fmt.Errorf("meilisearch %s: task %d failed: %w: %s: %s", op, task.UID, ErrBadInput, e.Code, e.Message)
	default:
		return fmt.Errorf("meilisearch %s: task %d ended %s", op, task.UID, task.Status)
	}
}

// IndexSettings are applied to an index at start.
type IndexSettings struct {
	PrimaryKey string
	Searchable []string
	Filterable []string
}

// EnsureIndex creates the index if it is missing and applies its settings, waiting for both.
func (c *Client) EnsureIndex(ctx context.Context, uid string, s IndexSettings) error {
	if !validUID.MatchString(uid) {
		return fmt.Errorf("meilisearch index %q: %w: uid must be alphanumeric, '-' or '_'", uid, ErrBadInput)
	}
	info, err := c.sm.CreateIndex(ctx, &meilisearch.IndexConfig{Uid: uid, PrimaryKey: s.PrimaryKey})
	if err != nil {
		return c.classify("create index "+uid, err)
	}
	if err := c.wait(ctx, "create index "+uid, info, meilisearch.APIErrCodeIndexAlreadyExists); err != nil {
		return err
	}
	info, err = c.sm.Index(uid).UpdateSettings(ctx, &meilisearch.Settings{
		SearchableAttributes: s.Searchable,
		FilterableAttributes: s.Filterable,
	})
	if err != nil {
		return c.classify("update settings of "+uid, err)
	}
	return c.wait(ctx, "update settings of "+uid, info)
}

// DeleteIndex removes an index and waits for it.
func (c *Client) DeleteIndex(ctx context.Context, uid string) error {
	info, err := c.sm.DeleteIndex(ctx, uid)
	if err != nil {
		return c.classify("delete index "+uid, err)
	}
	return c.wait(ctx, "delete index "+uid, info)
}

var validUID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,400}$`)

// ValidDocID reports whether id can be a Meilisearch document id.
func ValidDocID(id string) bool { return validUID.MatchString(id) && len(id) <= 511 }
