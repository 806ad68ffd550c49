package store

import (
	"database/sql"
	"sort"

	"github.com/runxhq/runx/kernel/pkg/semver"
)

// rows is what the stores read results through: pgx's rows, or
// database/sql's behind fromSQL.
type rows interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close()
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

// fromSQL adapts database/sql's rows, whose Close returns an error.
func fromSQL(r *sql.Rows, err error) (rows, error) {
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func scanFiles(rs rows, err error) ([]File, error) {
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []File
	for rs.Next() {
		var f File
		if err := rs.Scan(&f.Path, &f.Data); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rs.Err()
}

func scanHits(rs rows, err error) ([]Hit, error) {
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := []Hit{}
	for rs.Next() {
		var h Hit
		var methods, tier string
		if err := rs.Scan(&h.Kind, &h.Name, &h.Publisher, &h.Version, &h.Description, &methods, &tier); err != nil {
			return nil, err
		}
		h.Methods = []byte(methods)
		h.Tier = Tier(tier)
		if tier == "" {
			h.Tier = DefaultTier(h.Publisher)
		}
		out = append(out, h)
	}
	return out, rs.Err()
}

// sortVersions orders a skill's versions newest first by semver; a
// connector's arrive newest first by publish order already.
func sortVersions(kind string, vs []VersionInfo, err error) ([]VersionInfo, error) {
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		return nil, ErrNotFound
	}
	if kind == KindSkill {
		sort.SliceStable(vs, func(i, j int) bool { return semver.Compare(vs[i].Version, vs[j].Version) > 0 })
	}
	return vs, nil
}
