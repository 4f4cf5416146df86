package tds

import "encoding/binary"

var latin1 = [5]byte{0x09, 0x04, 0xD0, 0x00, 0x34}

func nvarchar(name, s string) Param {
	return Param{Name: name, Type: TypeInfo{Type: TypeNVarChar, Size: 8000, Collation: latin1}, Value: AppendUCS2(nil, s)}
}

func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// rpcSamples are RPC requests with the parameter types drivers send.
func rpcSamples() []*RPC {
	typed := []Param{
		nvarchar("", "INSERT INTO t VALUES (@a,@b,@c,@d,@e,@f,@g,@h,@i,@j,@k,@l,@m,@n)"),
		nvarchar("", "@a int, …"),
		{Name: "@a", Type: TypeInfo{Type: TypeIntN, Size: 4}, Value: []byte{1, 0, 0, 0}},
		{Name: "@b", Type: TypeInfo{Type: TypeBitN, Size: 1}, Value: []byte{1}},
		{Name: "@c", Type: TypeInfo{Type: TypeFltN, Size: 8}, Value: le64(0x400921FB54442D18)},
		{Name: "@d", Type: TypeInfo{Type: TypeDecimalN, Size: 17, Precision: 38, Scale: 2}, Value: append([]byte{1}, make([]byte, 16)...)},
		{Name: "@e", Type: TypeInfo{Type: TypeNVarChar, Size: MaxLenPLP, Collation: latin1}, Value: AppendUCS2(nil, "a long text")},
		{Name: "@f", Type: TypeInfo{Type: TypeBigVarChar, Size: 8000, Collation: latin1}, Value: []byte("ascii")},
		{Name: "@g", Type: TypeInfo{Type: TypeBigVarBinary, Size: 8000}, Value: []byte{0xDE, 0xAD}},
		{Name: "@h", Type: TypeInfo{Type: TypeDateTime2N, Scale: 7}, Value: []byte{0, 0, 0, 0, 0, 0x0B, 0x8D, 0x0A}},
		{Name: "@i", Type: TypeInfo{Type: TypeDateN, Size: 3}, Value: []byte{0x0B, 0x8D, 0x0A}},
		{Name: "@j", Type: TypeInfo{Type: TypeTimeN, Scale: 3}, Value: []byte{1, 2, 3, 4}},
		{Name: "@k", Type: TypeInfo{Type: TypeDateTimeOffset, Scale: 7}, Value: []byte{0, 0, 0, 0, 0, 0x0B, 0x8D, 0x0A, 0x3C, 0}},
		{Name: "@l", Type: TypeInfo{Type: TypeGUID, Size: 16}, Value: make([]byte, 16)},
		{Name: "@m", Type: TypeInfo{Type: TypeMoneyN, Size: 8}, Value: le64(12345)},
		{Name: "@n", Type: TypeInfo{Type: TypeIntN, Size: 8}, Value: nil},
		{Name: "@o", Type: TypeInfo{Type: TypeBigVarBinary, Size: MaxLenPLP}, Value: nil},
	}
	handle := Param{Name: "@handle", Status: ParamByRef, Type: TypeInfo{Type: TypeIntN, Size: 4}, Value: nil}
	return []*RPC{
		{Headers: TxHeaders(0, 1), Calls: []RPCCall{{ProcID: ProcExecuteSQL, Params: typed}}},
		{Headers: TxHeaders(7, 1), Calls: []RPCCall{
			{ProcID: ProcPrepExec, Params: []Param{handle, nvarchar("", "@p1 int"), nvarchar("", "DELETE FROM t WHERE id=@p1"), {Name: "@p1", Type: TypeInfo{Type: TypeIntN, Size: 4}, Value: []byte{2, 0, 0, 0}}}},
			{ProcID: ProcUnprepare, Params: []Param{{Type: TypeInfo{Type: TypeIntN, Size: 4}, Value: []byte{1, 0, 0, 0}}}},
			{ProcName: "dbo.my_proc", Params: []Param{nvarchar("@x", "y")}},
		}},
	}
}

// tokenSamples are server responses: a login answer, a result set with
// INTN/NVARCHAR/NVARCHAR(max), an error, an RPC's ending.
func tokenSamples() [][]byte {
	login := EnvString(EnvDatabase, "hoopdb", "master").Append(nil)
	login = (&ErrorInfo{Number: 5701, State: 2, Message: "Changed database context to 'hoopdb'.", ServerName: "srv"}).Append(login, TokenInfo)
	login = (&LoginAck{Interface: 1, TDSVersion: Version74, ProgName: "Microsoft SQL Server", Major: 16}).Append(login)
	login = EnvString(EnvPacketSize, "4096", "4096").Append(login)
	login = (&EnvChange{Type: EnvCollation, NewValue: latin1[:]}).Append(login)
	login = (&Done{}).Append(login)

	cols := []Column{
		{Flags: 1, Type: TypeInfo{Type: TypeIntN, Size: 4}, Name: "id"},
		{Flags: 1, Type: TypeInfo{Type: TypeNVarChar, Size: 100, Collation: latin1}, Name: "name"},
		{Flags: 1, Type: TypeInfo{Type: TypeNVarChar, Size: MaxLenPLP, Collation: latin1}, Name: "body"},
		{Flags: 1, Type: TypeInfo{Type: TypeDecimalN, Size: 17, Precision: 38, Scale: 2}, Name: "amount"},
		{Type: TypeInfo{Type: TypeInt8, Size: 8}, Name: "big"},
	}
	rs := (&ColMetadata{Columns: cols}).Append(nil)
	rs = (&Row{Values: [][]byte{{1, 0, 0, 0}, AppendUCS2(nil, "a"), AppendUCS2(nil, "long"), append([]byte{1}, make([]byte, 16)...), le64(9)}}).Append(rs, cols)
	rs = (&Row{Values: [][]byte{nil, nil, nil, nil, le64(10)}}).Append(rs, cols)
	rs = (&Done{Status: DoneCount | DoneMore, RowCount: 2}).Append(rs)
	rs = (&EnvChange{Type: EnvBeginTran, NewValue: le64(0x1122334455667788)}).Append(rs)
	rs = (&Done{Status: DoneInXact}).Append(rs)

	fail := (&ErrorInfo{Number: 208, State: 1, Class: 16, Message: "Invalid object name 'x'.", ServerName: "srv", Line: 1}).Append(nil, TokenError)
	fail = (&Done{Status: DoneError}).Append(fail)

	proc := []byte{TokenReturnStatus, 0, 0, 0, 0}
	proc = (&Done{Token: TokenDoneProc}).Append(proc)
	attn := (&Done{Status: DoneAttn}).Append(nil)
	return [][]byte{login, rs, fail, proc, attn}
}
