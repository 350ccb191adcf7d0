package simulate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// cachedModel answers from the cache folder dir the requests it was sent
// before in the same scope (a conversation and a role), and keeps the
// replies of the others there. A reply is kept whole, with the usage it
// reported, so that a run from the cache records what the first one did.
// Keeping a reply is best effort: a cache that cannot be written costs
// calls, never a run.
type cachedModel struct {
	m     model.BaseChatModel
	dir   string
	scope string
}

// cacheModel wraps m in the cache folder dir for the scope, or returns m
// when dir is empty.
func cacheModel(m model.BaseChatModel, dir, conversation, role string) model.BaseChatModel {
	if dir == "" {
		return m
	}
	return &cachedModel{m: m, dir: dir, scope: conversation + "\x00" + role}
}

func (c *cachedModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	path, ok := c.path(in)
	if ok {
		if msg, ok := readCached(path); ok {
			return msg, nil
		}
	}
	msg, err := c.m.Generate(ctx, in, opts...)
	if err == nil && msg != nil && ok {
		writeCached(path, msg)
	}
	return msg, err
}

// Stream is not cached: simulate's own calls do not stream.
func (c *cachedModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return c.m.Stream(ctx, in, opts...)
}

// path is the file of the request in, named by a SHA-256 of the scope and
// the messages; ok is false when they do not encode.
func (c *cachedModel) path(in []*schema.Message) (string, bool) {
	raw, err := json.Marshal(in)
	if err != nil {
		return "", false
	}
	h := sha256.New()
	h.Write([]byte(c.scope))
	h.Write([]byte{0})
	h.Write(raw)
	key := hex.EncodeToString(h.Sum(nil))
	return filepath.Join(c.dir, key[:2], key+".json"), true
}

// readCached reads the reply kept at path.
func readCached(path string) (*schema.Message, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var msg schema.Message
	if json.Unmarshal(raw, &msg) != nil {
		return nil, false
	}
	return &msg, true
}

// writeCached keeps msg at path, through a temporary file and a rename,
// so that concurrent readers never see half a reply.
func writeCached(path string, msg *schema.Message) {
	raw, err := json.Marshal(msg)
	if err != nil {
		return
	}
	dir := filepath.Dir(path)
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".reply.tmp*")
	if err != nil {
		return
	}
	_, err = f.Write(raw)
	if cerr := f.Close(); err == nil && cerr == nil && os.Rename(f.Name(), path) == nil {
		return
	}
	os.Remove(f.Name())
}

// cachedRanker returns the ranker r, with its model cached in dir when it
// is a NewRanker ranker.
func cachedRanker(r Ranker, dir, conversation string) Ranker {
	if lr, ok := r.(*llmRanker); ok && dir != "" {
		return &llmRanker{model: cacheModel(lr.model, dir, conversation, RoleRanker)}
	}
	return r
}

// cachedJudge returns the judge j, with its model cached in dir when it is
// a NewJudge judge.
func cachedJudge(j Judge, dir, conversation string) Judge {
	if lj, ok := j.(*llmJudge); ok && dir != "" {
		return &llmJudge{model: cacheModel(lj.model, dir, conversation, RoleJudge)}
	}
	return j
}
