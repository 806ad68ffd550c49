package pkg

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"

	"github.com/runxhq/runx/kernel/pkg/planseal"
)

// A PlanCache keeps what reading run.yaml produced (the strict-subset
// document tree, positions included) keyed by the package digest, so
// planning an unchanged package skips the YAML parse: in memory for the
// process, and on disk so a cold CLI run does too (docs/PERFORMANCE.md).
// Decoding and every check of the model still run on each load; only the
// parse is skipped, and only for exactly the bytes it was made from.
//
// A disk entry is trusted only under an HMAC-SHA256 by a key that lives
// beside the entries, readable by the owner alone: a corrupt, truncated or
// tampered entry (one whose tag does not verify, or that does not decode to
// the end) is ignored and the file parsed again, then rewritten. Write
// failures only cost the next run a parse, so they are not errors.
type PlanCache struct {
	dir string // "" keeps the cache in memory only

	mu     sync.Mutex
	mem    map[string]*node
	order  []string // insertion order, for the memory bound
	secret []byte   // loaded on first disk use
	noDisk bool     // the key could not be had: memory only
}

// planCacheSchema versions the key and the entry format.
const planCacheSchema = planseal.Schema

// maxMemoryPlans bounds the in-memory cache; a process plans few packages.
const maxMemoryPlans = 64

// PlanCacheDir is where a runx home keeps its plan cache.
func PlanCacheDir(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, "cache", "plans")
}

var (
	sharedMu     sync.Mutex
	sharedCaches = map[string]*PlanCache{}
)

// SharedPlanCache returns the process's cache for dir (one per directory),
// so every load in the process shares one memory cache.
func SharedPlanCache(dir string) *PlanCache {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	c := sharedCaches[dir]
	if c == nil {
		c = NewPlanCache(dir)
		sharedCaches[dir] = c
	}
	return c
}

// NewPlanCache returns an empty cache keeping its entries under dir ("" for
// memory only). A new cache on an existing dir is what a new process sees.
func NewPlanCache(dir string) *PlanCache {
	return &PlanCache{dir: dir, mem: map[string]*node{}}
}

// planKey names the reading of src within the package whose digest is
// digest: both must match for an entry to be used.
func planKey(digest, file string, src []byte) string {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(planCacheSchema), []byte(digest), []byte(file)} {
		h.Write(part)
		h.Write([]byte{0})
	}
	sum := sha256.Sum256(src)
	h.Write(sum[:])
	return hex.EncodeToString(h.Sum(nil))
}

// get returns the cached tree for key, or nil. The tree is shared: the
// decoder only reads nodes, never changes them.
func (c *PlanCache) get(key string) *node {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.mem[key]; ok {
		return n
	}
	if c.dir == "" {
		return nil
	}
	n := c.readDisk(key)
	if n != nil {
		c.remember(key, n)
	}
	return n
}

// put keeps root under key, in memory and on disk.
func (c *PlanCache) put(key string, root *node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remember(key, root)
	if c.dir != "" {
		c.writeDisk(key, root)
	}
}

func (c *PlanCache) remember(key string, n *node) {
	if _, ok := c.mem[key]; ok {
		return
	}
	if len(c.order) >= maxMemoryPlans {
		delete(c.mem, c.order[0])
		c.order = c.order[1:]
	}
	c.mem[key] = n
	c.order = append(c.order, key)
}

func (c *PlanCache) entryPath(key string) string { return filepath.Join(c.dir, key+".plan") }

// readDisk returns the entry for key when its tag verifies and it decodes
// whole; anything else is a miss.
func (c *PlanCache) readDisk(key string) *node {
	secret := c.key()
	if secret == nil {
		return nil
	}
	raw, err := os.ReadFile(c.entryPath(key))
	if err != nil {
		return nil
	}
	payload, ok := openEntry(secret, key, raw)
	if !ok {
		return nil
	}
	n, err := decodePlanTree(payload)
	if err != nil {
		return nil
	}
	return n
}

func (c *PlanCache) writeDisk(key string, root *node) {
	secret := c.key()
	if secret == nil {
		return
	}
	raw := sealEntry(secret, key, encodePlanTree(root))
	tmp, err := os.CreateTemp(c.dir, ".plan-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(raw)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), c.entryPath(key)) != nil {
		// The entry is not kept; the next run parses again.
		_ = os.Remove(tmp.Name())
	}
}

const planKeyFile = planseal.KeyFile

var sealEntry, openEntry = planseal.Seal, planseal.Open

// key returns the cache's HMAC key, creating it (owner-only) on first use.
// Without one the cache keeps to memory.
func (c *PlanCache) key() []byte {
	if c.secret != nil || c.noDisk {
		return c.secret
	}
	secret, err := planseal.LoadOrCreateKey(c.dir)
	if err != nil {
		c.noDisk = true
		return nil
	}
	c.secret = secret
	return secret
}
