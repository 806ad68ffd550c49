package sqlite

import (
	"context"
	"database/sql"
)

type writeStatements struct {
	state, byKey, insertEvent *sql.Stmt
}

type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func prepareWrite(ctx context.Context, conn preparer) (writeStatements, error) {
	var s writeStatements
	err := prepareAll(ctx, conn, []prepared{
		{&s.state, stmtAppendState},
		{&s.byKey, stmtByIdempotencyKey},
		{&s.insertEvent, stmtInsertEvent},
	})
	return s, err
}

func (s writeStatements) close() {
	closeAll(s.state, s.byKey, s.insertEvent)
}

type readStatements struct {
	head, forward, tail, list *sql.Stmt
}

func prepareRead(ctx context.Context, db preparer) (readStatements, error) {
	var s readStatements
	err := prepareAll(ctx, db, []prepared{
		{&s.head, stmtHead},
		{&s.forward, stmtPageForward},
		{&s.tail, stmtPageTail},
		{&s.list, stmtListHeads},
	})
	return s, err
}

func (s readStatements) close() {
	closeAll(s.head, s.forward, s.tail, s.list)
}

type prepared struct {
	into  **sql.Stmt
	query string
}

func prepareAll(ctx context.Context, p preparer, list []prepared) error {
	for _, ps := range list {
		stmt, err := p.PrepareContext(ctx, ps.query)
		if err != nil {
			return err
		}
		*ps.into = stmt
	}
	return nil
}

func closeAll(stmts ...*sql.Stmt) {
	for _, s := range stmts {
		if s != nil {
			s.Close()
		}
	}
}
