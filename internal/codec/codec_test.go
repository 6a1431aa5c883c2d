package codec

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// findings is a JSON value shaped like an investigation's findings: n results with titles,
// URLs and snippets, repetitive as search results are.
func findings(n int) []map[string]string {
	out := make([]map[string]string, n)
	for i := range out {
		out[i] = map[string]string{
			"url":     "file:///usr/share/doc/python3.11/html/library/asyncio-dev.html#p" + strings.Repeat("x", i%7),
			"title":   "Developing with asyncio — Running Blocking Code",
			"snippet": "Blocking (CPU-bound) code should not be called directly. For example, if a function performs a CPU-intensive calculation for 1 second, all concurrent asyncio Tasks and IO operations would be delayed by 1 second.",
		}
	}
	return out
}

func TestLargePayloadsAreCompressedAndSmallOnesStayPlain(t *testing.T) {
	dc := DataConverter()
	for _, tc := range []struct {
		name       string
		n          int
		compressed bool
	}{
		{"one finding", 1, false},
		{"just under the threshold", 340, false},
		{"just over the threshold", 420, true},
		{"a 2 MB investigation", 7000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := findings(tc.n)
			plain, err := converter.GetDefaultDataConverter().ToPayload(in)
			if err != nil {
				t.Fatal(err)
			}
			p, err := dc.ToPayload(in)
			if err != nil {
				t.Fatal(err)
			}
			enc := string(p.Metadata[converter.MetadataEncoding])
			if got := enc == "binary/zlib"; got != tc.compressed {
				t.Fatalf("%d bytes plain: encoding %q, want compressed %v", proto.Size(plain), enc, tc.compressed)
			}
			if !tc.compressed && !proto.Equal(p, plain) {
				t.Fatalf("a small payload changed: %v", p.Metadata)
			}
			if tc.compressed && proto.Size(p)*3 > proto.Size(plain) {
				t.Fatalf("compressed %d of %d bytes: less than 3x", proto.Size(p), proto.Size(plain))
			}
			var out []map[string]string
			if err := dc.FromPayload(p, &out); err != nil {
				t.Fatal(err)
			}
			if len(out) != tc.n || out[tc.n-1]["snippet"] != in[tc.n-1]["snippet"] {
				t.Fatalf("round trip lost the value: %d findings", len(out))
			}
		})
	}
}

func TestPlainPayloadsFromBeforeTheCodecStillRead(t *testing.T) {
	// histories recorded before the codec, and clients without it, hold plain JSON payloads
	in := findings(2000)
	plain, err := converter.GetDefaultDataConverter().ToPayload(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	if err := DataConverter().FromPayload(plain, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 2000 {
		t.Fatalf("read %d findings of 2000", len(out))
	}
}

func TestIncompressiblePayloadsStayPlain(t *testing.T) {
	// zlib keeps a payload it cannot shrink as it was
	data := make([]byte, 2*DefaultThreshold)
	x := uint32(1)
	for i := range data {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		data[i] = byte(x)
	}
	p := &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte("binary/plain")}, Data: data}
	out, err := NewLarge(DefaultThreshold).Encode([]*commonpb.Payload{p})
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(out[0], p) {
		t.Fatalf("random bytes were encoded as %q", out[0].Metadata[converter.MetadataEncoding])
	}
}

func TestHandlerDecodesForTheUI(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	p, err := DataConverter().ToPayload(findings(3000))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := protojson.Marshal(&commonpb.Payloads{Payloads: []*commonpb.Payload{p}})

	// the browser's preflight from the UI's page
	pre, _ := http.NewRequest(http.MethodOptions, srv.URL+"/decode", nil)
	pre.Header.Set("Origin", "http://localhost:8233")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:8233" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "X-Namespace") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/decode", bytes.NewReader(body))
	req.Header.Set("Origin", "http://localhost:8233")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Namespace", "default")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("decode: %d %s", resp.StatusCode, b)
	}
	var got commonpb.Payloads
	if err := protojson.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Payloads) != 1 || string(got.Payloads[0].Metadata[converter.MetadataEncoding]) != "json/plain" {
		t.Fatalf("decoded payloads: %v", got.Payloads)
	}
	var out []map[string]string
	if err := json.Unmarshal(got.Payloads[0].Data, &out); err != nil || len(out) != 3000 {
		t.Fatalf("decoded JSON: %d findings, %v", len(out), err)
	}
}
