package client

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/sdk/errcode"
)

// Method is a method a package declares, with its description.
type Method struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// SearchResult is one package a search found: its newest version.
type SearchResult struct {
	Kind        string   `json:"kind"`
	Ref         string   `json:"ref"`
	Publisher   string   `json:"publisher"`
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description"`
	Methods     []Method `json:"methods"`
	TrustTier   string   `json:"trust_tier"`
}

// SearchLimit is the most results a search asks for.
const SearchLimit = 100

// Search asks the registry for the packages matching words, at most limit
// (1..SearchLimit; 0 is 20).
func (c *Client) Search(ctx context.Context, words string, limit int) ([]SearchResult, error) {
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, SearchLimit)
	var doc struct {
		Results *[]SearchResult `json:"results"`
	}
	q := url.Values{"q": {words}, "limit": {strconv.Itoa(limit)}}
	if err := c.getJSON(ctx, "/v1/search", q, documentLimit, &doc); err != nil {
		return nil, err
	}
	if doc.Results == nil {
		return nil, contract.Errorf(errcode.RegistryResponseInvalid, "the registry's search answer has no results list")
	}
	res := *doc.Results
	if len(res) > limit {
		res = res[:limit]
	}
	for i := range res {
		if res[i].Ref == "" || res[i].Version == "" {
			return nil, contract.Errorf(errcode.RegistryResponseInvalid, "the registry's search answer holds a result without a ref or version")
		}
	}
	return res, nil
}

// VersionInfo is one published version of a package.
type VersionInfo struct {
	Version       string `json:"version"`
	ContentDigest string `json:"content_digest"`
	PackageFormat int    `json:"package_format"`
	PublishedAt   string `json:"published_at"`
}

// Versions is a package's page: its trust tier and versions, newest first.
type Versions struct {
	Publisher string        `json:"publisher,omitempty"`
	Name      string        `json:"name"`
	TrustTier string        `json:"trust_tier"`
	Versions  []VersionInfo `json:"versions"`
}

// Versions reads the versions the registry holds of ref's package, of
// kind (KindSkill or KindConnector), newest first: semver order when every
// version is semver, else the registry's order.
func (c *Client) Versions(ctx context.Context, kind string, ref Ref) (*Versions, error) {
	var v Versions
	if err := c.getJSON(ctx, ref.path(kind), nil, documentLimit, &v); err != nil {
		return nil, err
	}
	all := true
	for _, info := range v.Versions {
		if info.Version == "" {
			return nil, contract.Errorf(errcode.RegistryResponseInvalid, "the registry lists a version of %s without a version", ref.Name)
		}
		all = all && semver.Valid(info.Version)
	}
	if all {
		sort.SliceStable(v.Versions, func(a, b int) bool { return semver.Compare(v.Versions[a].Version, v.Versions[b].Version) > 0 })
	}
	return &v, nil
}

// NewestUnread names the newest version a ref without a version passed
// over, and why.
type NewestUnread struct {
	Version       string `json:"version"`
	PackageFormat int    `json:"package_format"`
	Reason        string `json:"reason"`
}

// ChooseNewest picks the newest version whose package format this runx
// reads (at most reads), from versions newest first. A newer one passed
// over is named in the NewestUnread it returns.
func ChooseNewest(name string, versions []VersionInfo, reads int) (VersionInfo, *NewestUnread, error) {
	if len(versions) == 0 {
		return VersionInfo{}, nil, contract.Errorf(errcode.RegistryVersionNotFound, "the registry holds no version of %s", name)
	}
	for i, v := range versions {
		if v.PackageFormat >= 1 && v.PackageFormat <= reads {
			if i == 0 {
				return v, nil, nil
			}
			top := versions[0]
			return v, &NewestUnread{
				Version:       top.Version,
				PackageFormat: top.PackageFormat,
				Reason:        fmt.Sprintf("%s@%s uses package format %d; this runx reads up to %d", name, top.Version, top.PackageFormat, reads),
			}, nil
		}
	}
	return VersionInfo{}, nil, contract.Errorf(errcode.RegistryVersionUnreadable, "every version of %s uses a package format this runx does not read (it reads up to %d; the newest, %s, uses %d): upgrade runx", name, reads, versions[0].Version, versions[0].PackageFormat)
}

// Key is a signing key the registry serves.
type Key struct {
	KeyID     string `json:"key_id"`
	Alg       string `json:"alg"`
	PublicKey string `json:"public_key"`
}

// Keys reads the registry's signing keys. They are what the registry says
// of itself: trusting one is a person's act (runx registry trust add).
func (c *Client) Keys(ctx context.Context) ([]Key, error) {
	var doc struct {
		Keys []Key `json:"keys"`
	}
	if err := c.getJSON(ctx, "/v1/keys", nil, documentLimit, &doc); err != nil {
		return nil, err
	}
	return doc.Keys, nil
}

// WhoAmI reads the namespaces the client's token owns.
func (c *Client) WhoAmI(ctx context.Context) ([]string, error) {
	if c.token == "" {
		return nil, contract.Errorf(errcode.RegistryTokenMissing, "no publisher token: export %s or run runx login --for publish --registry %s", EnvToken, c.base)
	}
	raw, err := c.exchange(ctx, "GET", "/v1/whoami", nil, nil, true, documentLimit)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Namespaces []string `json:"namespaces"`
	}
	if err := decode(raw, &doc, "/v1/whoami"); err != nil {
		return nil, err
	}
	for _, ns := range doc.Namespaces {
		if !refSegment.MatchString(ns) || strings.Contains(ns, "..") {
			return nil, contract.Errorf(errcode.RegistryResponseInvalid, "the registry's whoami answer names %q, which is not a namespace", c.scrub(ns))
		}
	}
	return doc.Namespaces, nil
}
