//! The CEL rules of `olm.constraint` (`{"cel": {"rule": …}}`), as OLM v0 compiles and runs them.
//!
//! Upstream: operator-framework/api `pkg/constraints/cel.go`. The environment declares one
//! variable, `properties` (a list of `map(string, dyn)`: each bundle property as `{type,
//! value}`), and one function, `semver_compare(any, any) int`, which formats both arguments with
//! Go's `fmt.Sprint`, reads them with blang `ParseTolerant` and compares them. A rule must
//! compile to type `bool` (else the resolution fails with `cel expressions must have type
//! Bool`); an evaluation error counts as false.
//!
//! The rules are parsed and run by the `cel` crate. cel-go's type checker has no counterpart
//! there, so [`compile`] infers the rule's result type itself from the parsed expression: it
//! knows the declared variable, comprehension variables, literals, operators, the standard
//! macros and functions and `semver_compare`; anything else it cannot type (a field of a
//! `dyn` value, an index) is `dyn`, which cel-go refuses as a result type too. An identifier
//! that is neither declared nor bound by a macro is refused as cel-go refuses an undeclared
//! reference. Type errors inside a rule that cel-go's checker would find (an operator applied
//! to operands of two concrete, incompatible types) surface here only when the rule runs, as a
//! false result: a deliberate approximation.

use std::collections::HashMap;

use cel::common::ast::{Expr, IdedExpr, LiteralValue, operators};
use serde_json::Value;

/// A rule that compiled.
#[derive(Debug)]
pub struct Rule {
    program: cel::Program,
}

/// The static types the checker tells apart.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ty {
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Null,
    List(Box<Ty>),
    Map(Box<Ty>, Box<Ty>),
    Dyn,
}

/// Compile a rule as `CelEnvironment.Validate` does: it must parse, name only what the
/// environment declares, and be of type `bool`.
pub fn compile(rule: &str) -> Result<Rule, String> {
    let program = cel::Program::compile(rule).map_err(|e| e.to_string())?;
    let mut scope: HashMap<String, Ty> = HashMap::new();
    scope.insert(
        "properties".into(),
        Ty::List(Box::new(Ty::Map(Box::new(Ty::String), Box::new(Ty::Dyn)))),
    );
    let ty = type_of(&program.expression().expr, &mut scope)?;
    if ty != Ty::Bool {
        return Err("cel expressions must have type Bool".into());
    }
    Ok(Rule { program })
}

/// Run a rule on a bundle's `properties` list (see [`super::entry::Props::cel_properties`]);
/// an error or a value that is not a bool is false.
pub fn evaluate(rule: &Rule, properties: &Value) -> bool {
    let mut context = cel::Context::default();
    if context.add_variable("properties", properties).is_err() {
        return false;
    }
    if context
        .add_function("semver_compare", semver_compare)
        .is_err()
    {
        return false;
    }
    matches!(rule.program.execute(&context), Ok(cel::Value::Bool(true)))
}

/// `semverCompare`: both arguments through `fmt.Sprint` and `ParseTolerant`, then blang's
/// `Compare` (SemVer precedence).
fn semver_compare(a: cel::Value, b: cel::Value) -> Result<i64, cel::ExecutionError> {
    let parse = |v: &cel::Value| {
        go_sprint(v)
            .and_then(|text| crate::version::parse_tolerant(&text).ok())
            .ok_or_else(|| {
                cel::ExecutionError::function_error(
                    "semver_compare",
                    format!("unable to parse '{v:?}' to semver format"),
                )
            })
    };
    let (x, y) = (parse(&a)?, parse(&b)?);
    Ok(match x.cmp_precedence(&y) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    })
}

/// Go's `fmt.Sprint` of a CEL value's Go form, for the values whose text can be a version.
fn go_sprint(v: &cel::Value) -> Option<String> {
    match v {
        cel::Value::String(s) => Some(s.to_string()),
        cel::Value::Int(i) => Some(i.to_string()),
        cel::Value::UInt(u) => Some(u.to_string()),
        cel::Value::Float(f) => Some(go_float(*f)),
        cel::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `%v` of a `float64`: the shortest representation, in exponent form below 1e-4 and from 1e21.
fn go_float(f: f64) -> String {
    if f == 0.0 || !f.is_finite() {
        return format!("{f}");
    }
    let exp = f.abs().log10().floor() as i32;
    if !(-4..21).contains(&exp) {
        let text = format!("{f:e}");
        // Rust writes `1e21`, Go `1e+21`; both write at least two exponent digits? Go does.
        let (mantissa, e) = text.split_once('e').unwrap_or((&text, "0"));
        let (sign, digits) = match e.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', e),
        };
        format!("{mantissa}e{sign}{digits:0>2}")
    } else {
        format!("{f}")
    }
}

fn type_of(expr: &Expr, scope: &mut HashMap<String, Ty>) -> Result<Ty, String> {
    Ok(match expr {
        Expr::Unspecified => Ty::Dyn,
        Expr::Literal(l) => match l {
            LiteralValue::Boolean(_) => Ty::Bool,
            LiteralValue::Bytes(_) => Ty::Bytes,
            LiteralValue::Double(_) => Ty::Double,
            LiteralValue::Int(_) => Ty::Int,
            LiteralValue::Null => Ty::Null,
            LiteralValue::String(_) => Ty::String,
            LiteralValue::UInt(_) => Ty::Uint,
        },
        Expr::Ident(name) => match scope.get(name) {
            Some(t) => t.clone(),
            None if matches!(
                name.as_str(),
                "int"
                    | "uint"
                    | "double"
                    | "string"
                    | "bytes"
                    | "bool"
                    | "list"
                    | "map"
                    | "null_type"
                    | "type"
                    | "dyn"
            ) =>
            {
                Ty::Dyn
            }
            None => return Err(format!("undeclared reference to '{name}'")),
        },
        Expr::List(l) => {
            let mut elem: Option<Ty> = None;
            for e in &l.elements {
                let t = type_of(&e.expr, scope)?;
                elem = Some(match elem {
                    None => t,
                    Some(prev) if prev == t => prev,
                    Some(_) => Ty::Dyn,
                });
            }
            Ty::List(Box::new(elem.unwrap_or(Ty::Dyn)))
        }
        Expr::Map(m) => {
            for e in &m.entries {
                if let cel::common::ast::EntryExpr::MapEntry(entry) = &e.expr {
                    type_of(&entry.key.expr, scope)?;
                    type_of(&entry.value.expr, scope)?;
                }
            }
            Ty::Map(Box::new(Ty::Dyn), Box::new(Ty::Dyn))
        }
        Expr::Struct(_) => Ty::Dyn,
        Expr::Select(s) => {
            let operand = type_of(&s.operand.expr, scope)?;
            if s.test {
                Ty::Bool
            } else {
                match operand {
                    Ty::Map(_, v) => *v,
                    _ => Ty::Dyn,
                }
            }
        }
        Expr::Comprehension(c) => {
            let range = type_of(&c.iter_range.expr, scope)?;
            let elem = match range {
                Ty::List(e) => *e,
                Ty::Map(k, _) => *k,
                _ => Ty::Dyn,
            };
            let accu = type_of(&c.accu_init.expr, scope)?;
            let saved: Vec<(String, Option<Ty>)> = [&c.iter_var, &c.accu_var]
                .into_iter()
                .chain(c.iter_var2.as_ref())
                .map(|n| (n.clone(), scope.get(n).cloned()))
                .collect();
            scope.insert(c.iter_var.clone(), elem);
            if let Some(v2) = &c.iter_var2 {
                scope.insert(v2.clone(), Ty::Dyn);
            }
            scope.insert(c.accu_var.clone(), accu);
            let checked = type_of(&c.loop_cond.expr, scope)
                .and_then(|_| type_of(&c.loop_step.expr, scope))
                .and_then(|_| type_of(&c.result.expr, scope));
            for (name, old) in saved {
                match old {
                    Some(t) => scope.insert(name, t),
                    None => scope.remove(&name),
                };
            }
            checked?
        }
        Expr::Call(call) => {
            let mut args = Vec::with_capacity(call.args.len() + 1);
            if let Some(t) = &call.target {
                args.push(type_of(&t.expr, scope)?);
            }
            for a in &call.args {
                args.push(type_of(&a.expr, scope)?);
            }
            call_type(&call.func_name, &args, &call.args)
        }
    })
}

fn call_type(name: &str, args: &[Ty], raw: &[IdedExpr]) -> Ty {
    let _ = raw;
    match name {
        operators::LOGICAL_AND
        | operators::LOGICAL_OR
        | operators::LOGICAL_NOT
        | operators::EQUALS
        | operators::NOT_EQUALS
        | operators::LESS
        | operators::LESS_EQUALS
        | operators::GREATER
        | operators::GREATER_EQUALS
        | operators::IN
        | operators::NOT_STRICTLY_FALSE
        | operators::HAS
        | operators::ALL
        | operators::EXISTS
        | operators::EXISTS_ONE
        | "startsWith"
        | "endsWith"
        | "contains"
        | "matches"
        | "bool" => Ty::Bool,
        operators::CONDITIONAL => match (args.get(1), args.get(2)) {
            (Some(a), Some(b)) if a == b => a.clone(),
            _ => Ty::Dyn,
        },
        operators::NEGATE
        | operators::ADD
        | operators::SUBSTRACT
        | operators::MULTIPLY
        | operators::DIVIDE
        | operators::MODULO => {
            match args.first() {
                Some(
                    t @ (Ty::Int | Ty::Uint | Ty::Double | Ty::String | Ty::Bytes | Ty::List(_)),
                ) if args.iter().all(|a| a == t) => t.clone(),
                _ => Ty::Dyn,
            }
        }
        operators::INDEX => match args.first() {
            Some(Ty::List(e)) => (**e).clone(),
            Some(Ty::Map(_, v)) => (**v).clone(),
            _ => Ty::Dyn,
        },
        "size" | "int" | "semver_compare" => Ty::Int,
        "uint" => Ty::Uint,
        "double" => Ty::Double,
        "string" => Ty::String,
        "bytes" => Ty::Bytes,
        _ => Ty::Dyn,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn props() -> Value {
        json!([
            {"type": "olm.package", "value": {"packageName": "etcd", "version": "0.9.4"}},
            {"type": "certified", "value": true},
            {"type": "olm.maxOpenShiftVersion", "value": 4.14},
        ])
    }

    #[test]
    fn rules_of_type_bool_compile_and_run() {
        for (rule, want) in [
            (
                r#"properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "0.9.0") >= 0)"#,
                true,
            ),
            (
                r#"properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "v1") >= 0)"#,
                false,
            ),
            (
                r#"properties.exists(p, p.type == "certified" && p.value == true)"#,
                true,
            ),
            (r#"properties.all(p, p.type != "nope")"#, true),
            (r#"properties.exists_one(p, p.type == "certified")"#, true),
            (r#"size(properties) == 3"#, true),
            (
                r#"properties.exists(p, p.type == "olm.maxOpenShiftVersion" && semver_compare(p.value, "4.14") == 0)"#,
                true,
            ),
            (
                r#"properties.exists(p, semver_compare(p.value, "1.0.0") == 0)"#,
                false,
            ),
        ] {
            let compiled = compile(rule).unwrap_or_else(|e| panic!("{rule}: {e}"));
            assert_eq!(evaluate(&compiled, &props()), want, "{rule}");
        }
    }

    #[test]
    fn rules_cel_go_refuses_are_refused() {
        for (rule, why) in [
            ("1 + 1", "cel expressions must have type Bool"),
            ("properties", "cel expressions must have type Bool"),
            ("properties[0].value", "cel expressions must have type Bool"),
            (
                "semver_compare(\"1.0.0\", \"1.0.0\")",
                "cel expressions must have type Bool",
            ),
            (
                "bundle.version == \"1\"",
                "undeclared reference to 'bundle'",
            ),
        ] {
            assert_eq!(compile(rule).unwrap_err(), why, "{rule}");
        }
        assert!(compile("properties.exists(p,").is_err());
    }

    #[test]
    fn go_formats_floats_as_fmt_sprint_does() {
        assert_eq!(go_float(1.0), "1");
        assert_eq!(go_float(4.14), "4.14");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(1e-5), "1e-05");
        assert_eq!(go_float(123456.0), "123456");
    }
}
