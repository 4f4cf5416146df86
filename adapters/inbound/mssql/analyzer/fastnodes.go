package analyzer

import (
	"reflect"
	"strings"

	"github.com/sqlc-dev/teesql/ast"
)

// fastNodes are the teesql node types the fast path reads, each with the
// actions it adds (as classify adds them for the grammar's rules). A tree
// holding any other type goes to the grammar. Leaves and expressions add
// nothing; names are read by fastWalker.
var fastNodes = func() map[reflect.Type][]string {
	m := map[reflect.Type][]string{}
	add := func(acts []string, nodes ...any) {
		for _, n := range nodes {
			m[reflect.TypeOf(n)] = acts
		}
	}
	add([]string{"SELECT"}, (*ast.QuerySpecification)(nil))
	add([]string{"INSERT"}, (*ast.InsertStatement)(nil))
	add([]string{"UPDATE"}, (*ast.UpdateStatement)(nil))
	add([]string{"DELETE"}, (*ast.DeleteStatement)(nil))
	add([]string{"DECLARE"}, (*ast.DeclareVariableStatement)(nil))
	add([]string{"SET"}, (*ast.PredicateSetStatement)(nil), (*ast.SetVariableStatement)(nil))
	add(nil,
		// Statements that carry the analysis of those inside.
		(*ast.SelectStatement)(nil), (*ast.IfStatement)(nil), (*ast.BeginEndBlockStatement)(nil),
		(*ast.WhileStatement)(nil), (*ast.StatementList)(nil),
		// Parts of statements.
		(*ast.InsertSpecification)(nil), (*ast.UpdateSpecification)(nil), (*ast.DeleteSpecification)(nil),
		(*ast.SelectInsertSource)(nil), (*ast.ValuesInsertSource)(nil), (*ast.RowValue)(nil),
		(*ast.DeclareVariableElement)(nil), (*ast.AssignmentSetClause)(nil), (*ast.SelectSetVariable)(nil),
		(*ast.WithCtesAndXmlNamespaces)(nil), (*ast.CommonTableExpression)(nil),
		(*ast.BinaryQueryExpression)(nil), (*ast.QueryParenthesisExpression)(nil),
		(*ast.SelectScalarExpression)(nil), (*ast.SelectStarExpression)(nil), (*ast.TopRowFilter)(nil),
		(*ast.FromClause)(nil), (*ast.WhereClause)(nil), (*ast.GroupByClause)(nil), (*ast.HavingClause)(nil),
		(*ast.OrderByClause)(nil), (*ast.OffsetClause)(nil), (*ast.ExpressionGroupingSpecification)(nil),
		(*ast.ExpressionWithSortOrder)(nil), (*ast.OverClause)(nil), (*ast.WindowFrameClause)(nil),
		(*ast.WindowDelimiter)(nil),
		(*ast.NamedTableReference)(nil), (*ast.SchemaObjectName)(nil), (*ast.TableHint)(nil), (*ast.IndexTableHint)(nil),
		(*ast.OptimizerHint)(nil),
		(*ast.QualifiedJoin)(nil), (*ast.UnqualifiedJoin)(nil), (*ast.QueryDerivedTable)(nil),
		(*ast.VariableTableReference)(nil),
		// Expressions.
		(*ast.ColumnReferenceExpression)(nil), (*ast.FunctionCall)(nil), (*ast.MultiPartIdentifierCallTarget)(nil),
		(*ast.MultiPartIdentifier)(nil), (*ast.Identifier)(nil), (*ast.IdentifierOrValueExpression)(nil),
		(*ast.VariableReference)(nil), (*ast.GlobalVariableExpression)(nil),
		(*ast.IntegerLiteral)(nil), (*ast.NumericLiteral)(nil), (*ast.RealLiteral)(nil), (*ast.StringLiteral)(nil),
		(*ast.NullLiteral)(nil), (*ast.MaxLiteral)(nil), (*ast.BinaryLiteral)(nil), (*ast.MoneyLiteral)(nil),
		(*ast.BinaryExpression)(nil), (*ast.UnaryExpression)(nil), (*ast.ParenthesisExpression)(nil),
		(*ast.ScalarSubquery)(nil), (*ast.SearchedCaseExpression)(nil), (*ast.SearchedWhenClause)(nil),
		(*ast.SimpleCaseExpression)(nil), (*ast.SimpleWhenClause)(nil),
		(*ast.CastCall)(nil), (*ast.ConvertCall)(nil), (*ast.TryCastCall)(nil), (*ast.TryConvertCall)(nil),
		(*ast.CoalesceExpression)(nil), (*ast.NullIfExpression)(nil), (*ast.IIfCall)(nil),
		(*ast.LeftFunctionCall)(nil), (*ast.RightFunctionCall)(nil),
		(*ast.SqlDataTypeReference)(nil),
		(*ast.BooleanBinaryExpression)(nil), (*ast.BooleanComparisonExpression)(nil), (*ast.BooleanInExpression)(nil),
		(*ast.BooleanIsNullExpression)(nil), (*ast.BooleanLikeExpression)(nil), (*ast.BooleanNotExpression)(nil),
		(*ast.BooleanParenthesisExpression)(nil), (*ast.BooleanTernaryExpression)(nil), (*ast.ExistsPredicate)(nil),
		(*ast.SubqueryComparisonPredicate)(nil),
	)
	return m
}()

// builtinFunctions are the functions the grammar reads as built in (its
// built_in_functions, aggregate, ranking and analytic windowed function
// rules, and LEFT, RIGHT, CHECKSUM and BINARY_CHECKSUM), lower case: the
// grammar path does not report them as Functions, so neither does the fast
// path. TestBuiltinFunctionsAsTheGrammarReadsThem checks each.
var builtinFunctions = setOf(strings.Fields(`
abs acos app_name applock_mode applock_test ascii asin assemblyproperty atan atn2 avg
binary_checksum ceiling char charindex checksum checksum_agg col_length col_name columnproperty
compress concat concat_ws connectionproperty context_info cos cot count count_big cume_dist
current_request_id current_transaction_id cursor_status
database_principal_id databasepropertyex datalength date_bucket dateadd datediff datediff_big
datefromparts datename datepart datetime2fromparts datetimefromparts datetimeoffsetfromparts datetrunc day
db_id db_name decompress degrees dense_rank difference eomonth error_line error_message error_number
error_procedure error_severity error_state exp file_id file_idex file_name filegroup_id filegroup_name
filegroupproperty fileproperty filepropertyex first_value format formatmessage fulltextcatalogproperty
fulltextserviceproperty getansinull getdate getutcdate greatest grouping grouping_id has_dbaccess
has_perms_by_name host_id host_name ident_current ident_incr ident_seed index_col indexkey_property
indexproperty is_member is_rolemember is_srvrolemember isdate isjson isnull isnumeric json_array
json_modify json_object json_path_exists json_query json_value lag last_value lead least left len log
log10 loginproperty lower ltrim max min min_active_rowversion month nchar newid newsequentialid ntile
object_definition object_id object_name object_schema_name objectproperty objectpropertyex
original_db_name original_login parsename patindex percent_rank percentile_cont percentile_disc
permissions pi power pwdcompare pwdencrypt quotename radians rand rank replace replicate reverse right
round row_number rowcount_big rtrim schema_id schema_name scope_identity serverproperty session_context
sessionproperty sign sin smalldatetimefromparts soundex space sql_variant_property sqrt square stats_date
stdev stdevp str string_agg string_escape stuff substring sum suser_id suser_sid suser_sname
switchoffset sysdatetime sysdatetimeoffset sysutcdatetime tan timefromparts todatetimeoffset translate
trim type_id type_name typeproperty unicode upper user_id user_name var varp xact_state year
`)...)
