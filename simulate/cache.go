package simulate

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// replyCache is the cache of one conversation's calls to the simulator's
// models, in one file of the cache folder: a JSON line per reply, keyed by
// role, turn and request. It reads the file on first use, and appends
// each new reply, so that a conversation costs one file however many
// calls it makes. A line cut short by a crash is skipped. Keeping a reply
// is best effort: a cache that cannot be written costs calls, never a
// run.
type replyCache struct {
	path string

	mu      sync.Mutex
	loaded  bool
	replies map[string]*schema.Message
	f       *os.File
}

// cachedReply is a line of a cache file.
type cachedReply struct {
	Key   string          `json:"key"`
	Reply *schema.Message `json:"reply"`
}

// newReplyCache is the cache of the conversation id in the folder dir,
// or nil when dir is empty.
func newReplyCache(dir, id string) *replyCache {
	if dir == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(id))
	name := hex.EncodeToString(sum[:])
	return &replyCache{path: filepath.Join(dir, name[:2], name+".jsonl")}
}

// get returns the reply kept under key.
func (c *replyCache) get(key string) (*schema.Message, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		c.load()
	}
	msg, ok := c.replies[key]
	return msg, ok
}

// load reads the replies of the cache file, if it exists.
func (c *replyCache) load() {
	c.loaded = true
	c.replies = map[string]*schema.Message{}
	raw, err := os.ReadFile(c.path)
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, len(raw)+1)
	for sc.Scan() {
		var r cachedReply
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Reply != nil {
			c.replies[r.Key] = r.Reply
		}
	}
}

// put keeps msg under key, appending it to the cache file.
func (c *replyCache) put(key string, msg *schema.Message) {
	line, err := json.Marshal(cachedReply{Key: key, Reply: msg})
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		if os.MkdirAll(filepath.Dir(c.path), 0o700) != nil {
			return
		}
		if c.f, err = os.OpenFile(c.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
			return
		}
	}
	if _, err := c.f.Write(append(line, '\n')); err == nil {
		c.replies[key] = msg
	}
}

// close closes the cache file, if it was opened.
func (c *replyCache) close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

// cachedModel answers from its conversation's cache the requests of its
// role it was sent before in the same turn, and keeps the replies of the
// others there: a request made again in a later turn is a new call, as it
// would be without the cache. A reply is kept whole, with the usage it
// reported, so that a run from the cache records what the first one did.
type cachedModel struct {
	m    model.BaseChatModel
	c    *replyCache
	role string
}

// cacheModel wraps m in the cache c for role, or returns m when c is nil.
func cacheModel(m model.BaseChatModel, c *replyCache, role string) model.BaseChatModel {
	if c == nil {
		return m
	}
	return &cachedModel{m: m, c: c, role: role}
}

func (cm *cachedModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	turn, _ := ctx.Value(cacheTurnKey{}).(int)
	key, err := cm.key(turn, in)
	if err == nil {
		if msg, ok := cm.c.get(key); ok {
			return msg, nil
		}
	}
	msg, gerr := cm.m.Generate(ctx, in, opts...)
	if gerr == nil && msg != nil && err == nil {
		cm.c.put(key, msg)
	}
	return msg, gerr
}

// Stream is not cached: simulate's own calls do not stream.
func (cm *cachedModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return cm.m.Stream(ctx, in, opts...)
}

// cacheTurnKey carries, in a call's context, the turn being played.
type cacheTurnKey struct{}

// key is a SHA-256 of the role, the turn and the request in.
func (cm *cachedModel) key(turn int, in []*schema.Message) (string, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return "", errors.Join(errUncacheable, err)
	}
	h := sha256.New()
	h.Write([]byte(cm.role + "\x00" + strconv.Itoa(turn) + "\x00"))
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// errUncacheable reports a request that cannot be keyed.
var errUncacheable = errors.New("simulate: request cannot be cached")

// cachedRanker returns the ranker r, with its model cached in c when it
// is a NewRanker ranker.
func cachedRanker(r Ranker, c *replyCache) Ranker {
	if lr, ok := r.(*llmRanker); ok && c != nil {
		return &llmRanker{model: cacheModel(lr.model, c, RoleRanker)}
	}
	return r
}

// cachedJudge returns the judge j, with its model cached in c when it is
// a NewJudge judge.
func cachedJudge(j Judge, c *replyCache) Judge {
	if lj, ok := j.(*llmJudge); ok && c != nil {
		return &llmJudge{model: cacheModel(lj.model, c, RoleJudge)}
	}
	return j
}
