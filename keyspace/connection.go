package keyspace

// KillClient ends c for every command that runs after this one (it is
// gone from CLIENT LIST, its subscriptions and wait are released, its
// queued commands are dropped) and closes its connection; when c is the
// caller its replies so far are written first.
func (x *Ctx) KillClient(c *Client) {
	x.EndClient(c)
	if c == x.C {
		x.Batch.CloseAfter = true
		return
	}
	if c.Conn != nil {
		_ = c.Conn.Close()
	}
}
