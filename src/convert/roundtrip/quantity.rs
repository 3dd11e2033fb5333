//! `resource.Quantity` as Go reads and writes it: `ParseQuantity`, then `MarshalJSON`
//! (the original text when `ParseQuantity` judged it canonical, else `CanonicalizeBytes`).
//!
//! Source (read, not copied): k8s.io/apimachinery `pkg/api/resource/quantity.go`
//! (`parseQuantityString`, `ParseQuantity`, `CanonicalizeBytes`, `MarshalJSON`,
//! `UnmarshalJSON`), `amount.go` (`AsCanonicalBytes`, `AsCanonicalBase1024Bytes`) and
//! `suffix.go` (the suffix tables). The value is kept as an exact decimal
//! (`unscaled × 10^-scale`), as Go's `int64Amount`/`inf.Dec` are.

use num_bigint::{BigInt, Sign};

/// Why a quantity does not parse (Go's `ErrFormatWrong`, `ErrSuffix`, `ErrNumeric`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QuantityError {
    /// `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`.
    #[error(
        "quantity {0:?} is invalid: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )]
    Format(String),
    /// `unable to parse quantity's suffix`.
    #[error("quantity {0:?} is invalid: unable to parse quantity's suffix")]
    Suffix(String),
    /// `unable to parse numeric part of quantity`.
    #[error("quantity {0:?} is invalid: unable to parse numeric part of quantity")]
    Numeric(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    DecimalExponent,
    BinarySI,
    DecimalSI,
}

struct Parsed<'a> {
    positive: bool,
    value: &'a str,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// `parseQuantityString`.
fn parse_quantity_string(s: &str) -> Result<Parsed<'_>, QuantityError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut positive = true;
    let mut pos = 0;
    if pos < end {
        match b[0] {
            b'-' => {
                positive = false;
                pos += 1;
            }
            b'+' => pos += 1,
            _ => {}
        }
    }
    // Leading zeros.
    loop {
        if pos >= end {
            return Ok(Parsed {
                positive,
                value: "0",
                num: "0",
                denom: "",
                suffix: "",
            });
        }
        if b[pos] == b'0' {
            pos += 1;
        } else {
            break;
        }
    }
    let start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos >= end {
        return Ok(Parsed {
            positive,
            value: s,
            num: &s[start..],
            denom: "",
            suffix: "",
        });
    }
    let mut num = &s[start..pos];
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if b[pos] == b'.' {
        pos += 1;
        let ds = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[ds..pos];
        if pos >= end {
            return Ok(Parsed {
                positive,
                value: s,
                num,
                denom,
                suffix: "",
            });
        }
    }
    let value = &s[..pos];
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && matches!(b[pos], b'-' | b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return Err(QuantityError::Format(s.to_owned()));
    }
    Ok(Parsed {
        positive,
        value,
        num,
        denom,
        suffix: &s[suffix_start..],
    })
}

/// `suffixHandler.interpret`: base, exponent, format.
fn interpret(suffix: &str) -> Option<(u32, i32, Format)> {
    let dec = match suffix {
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "" => Some(0),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(e) = dec {
        return Some((10, e, Format::DecimalSI));
    }
    let bin = match suffix {
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        "Ti" => Some(40),
        "Pi" => Some(50),
        "Ei" => Some(60),
        _ => None,
    };
    if let Some(e) = bin {
        return Some((2, e, Format::BinarySI));
    }
    if suffix.len() > 1 && (suffix.starts_with('e') || suffix.starts_with('E')) {
        let e: i64 = suffix[1..].parse().ok()?;
        return Some((10, e as i32, Format::DecimalExponent));
    }
    None
}

/// A parsed quantity: `unscaled × 10^-scale`, its format, and the text Go keeps when it was
/// already canonical.
#[derive(Debug, Clone)]
struct Quantity {
    unscaled: BigInt,
    scale: i32,
    format: Format,
    kept: Option<String>,
}

const MAX_INT64_FACTORS: i32 = 18;

/// `ParseQuantity`.
fn parse(s: &str) -> Result<Quantity, QuantityError> {
    if s.is_empty() {
        return Err(QuantityError::Format(s.to_owned()));
    }
    if s == "0" {
        return Ok(Quantity {
            unscaled: BigInt::from(0),
            scale: 0,
            format: Format::DecimalSI,
            kept: Some(s.to_owned()),
        });
    }
    let p = parse_quantity_string(s)?;
    let (base, exponent, mut format) =
        interpret(p.suffix).ok_or_else(|| QuantityError::Suffix(s.to_owned()))?;

    let digits = (p.num.len() + p.denom.len()) as i32;
    let (precision, mut scale, mantissa_shift) = match format {
        Format::DecimalExponent | Format::DecimalSI => (MAX_INT64_FACTORS - digits, exponent, 0),
        Format::BinarySI if exponent >= 0 && p.denom.is_empty() => (
            15 - p.num.len() as i32 - (exponent as f32 * 3.0 / 10.0) as i32 - 1,
            0,
            exponent,
        ),
        Format::BinarySI => (-1, 0, 0),
    };

    // The int64 fast path.
    if precision >= 0 {
        scale -= p.denom.len() as i32;
        if scale >= -9 {
            let shifted = format!("{}{}", p.num, p.denom);
            let value: i64 = shifted
                .parse()
                .map_err(|_| QuantityError::Numeric(s.to_owned()))?;
            if let Some(result) = 1i64
                .checked_shl(mantissa_shift as u32)
                .and_then(|m| value.checked_mul(m))
            {
                let result = if p.positive { result } else { -result };
                let canonical = match format {
                    Format::BinarySI => exponent % 10 == 0 && (value & 0x07) != 0,
                    _ => scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0'),
                };
                return Ok(Quantity {
                    unscaled: BigInt::from(result),
                    // Go's int64Amount scale is a power-of-ten exponent; ours is its negation.
                    scale: -scale,
                    format,
                    kept: canonical.then(|| s.to_owned()),
                });
            }
        }
    }

    // The inf.Dec path.
    let (mut unscaled, mut dscale) =
        parse_decimal(p.value).ok_or_else(|| QuantityError::Numeric(s.to_owned()))?;
    if base == 10 {
        dscale -= exponent;
    } else {
        unscaled <<= exponent as usize;
    }
    let negative = unscaled.sign() == Sign::Minus;
    if negative {
        unscaled = -unscaled;
    }
    // Round non-zero values up to nano precision (inf.RoundUp: away from zero).
    if unscaled.sign() != Sign::NoSign && dscale > 9 {
        let div = BigInt::from(10).pow((dscale - 9) as u32);
        let (q, r) = (&unscaled / &div, &unscaled % &div);
        unscaled = if r.sign() == Sign::NoSign { q } else { q + 1 };
        dscale = 9;
    }
    if format == Format::BinarySI {
        let max = BigInt::from(i64::MAX);
        if cmp_dec(&unscaled, dscale, &max, 0) == std::cmp::Ordering::Greater {
            unscaled = max;
            dscale = 0;
        }
        let one = BigInt::from(1);
        if cmp_dec(&unscaled, dscale, &one, 0) == std::cmp::Ordering::Less
            && unscaled.sign() != Sign::NoSign
        {
            format = Format::DecimalSI;
        }
    }
    if negative {
        unscaled = -unscaled;
    }
    Ok(Quantity {
        unscaled,
        scale: dscale,
        format,
        kept: None,
    })
}

/// `inf.Dec.SetString` on `[+-]digits[.digits]`.
fn parse_decimal(s: &str) -> Option<(BigInt, i32)> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (int, frac) = rest.split_once('.').unwrap_or((rest, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let digits = format!("{int}{frac}");
    if !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut v: BigInt = digits.parse().ok()?;
    if neg {
        v = -v;
    }
    Some((v, frac.len() as i32))
}

fn cmp_dec(a: &BigInt, ascale: i32, b: &BigInt, bscale: i32) -> std::cmp::Ordering {
    let s = ascale.max(bscale);
    let ten = BigInt::from(10);
    let a = a * ten.pow((s - ascale) as u32);
    let b = b * ten.pow((s - bscale) as u32);
    a.cmp(&b)
}

/// Move factors of `base` out of `v`.
fn remove_factors(mut v: BigInt, base: u32) -> (BigInt, i32) {
    let b = BigInt::from(base);
    let mut times = 0;
    if v.sign() == Sign::NoSign {
        return (v, 0);
    }
    loop {
        let r = &v % &b;
        if r.sign() != Sign::NoSign {
            break;
        }
        v /= &b;
        times += 1;
    }
    (v, times)
}

fn dec_suffix(exponent: i32) -> Option<&'static str> {
    Some(match exponent {
        -9 => "n",
        -6 => "u",
        -3 => "m",
        0 => "",
        3 => "k",
        6 => "M",
        9 => "G",
        12 => "T",
        15 => "P",
        18 => "E",
        _ => return None,
    })
}

impl Quantity {
    /// `CanonicalizeBytes`, joined.
    fn canonical(&self) -> String {
        if self.unscaled.sign() == Sign::NoSign {
            return "0".to_owned();
        }
        let mut format = self.format;
        if format == Format::BinarySI {
            let small = cmp_dec(&self.unscaled, self.scale, &BigInt::from(-1024), 0)
                == std::cmp::Ordering::Greater
                && cmp_dec(&self.unscaled, self.scale, &BigInt::from(1024), 0)
                    == std::cmp::Ordering::Less;
            let integral = self.scale <= 0 || {
                let div = BigInt::from(10).pow(self.scale as u32);
                (&self.unscaled % div).sign() == Sign::NoSign
            };
            if small || !integral {
                format = Format::DecimalSI;
            }
        }
        match format {
            Format::BinarySI => {
                let value = if self.scale <= 0 {
                    &self.unscaled * BigInt::from(10).pow((-self.scale) as u32)
                } else {
                    &self.unscaled / BigInt::from(10).pow(self.scale as u32)
                };
                let (amount, times) = remove_factors(value, 1024);
                let suffix = match times {
                    0 => "",
                    1 => "Ki",
                    2 => "Mi",
                    3 => "Gi",
                    4 => "Ti",
                    5 => "Pi",
                    6 => "Ei",
                    // Beyond int64: Go's table has no entry and writes no suffix.
                    _ => "",
                };
                format!("{amount}{suffix}")
            }
            Format::DecimalSI | Format::DecimalExponent => {
                let (mut amount, times) = remove_factors(self.unscaled.clone(), 10);
                let mut exponent = -self.scale + times;
                while exponent % 3 != 0 {
                    amount *= 10;
                    exponent -= 1;
                }
                let suffix = if format == Format::DecimalSI {
                    // Quirk copied from Go: an exponent outside the table gets no suffix
                    // (`listSuffixer.constructBytes` fails and the empty suffix is used).
                    dec_suffix(exponent).unwrap_or("").to_owned()
                } else if exponent == 0 {
                    String::new()
                } else {
                    format!("e{exponent}")
                };
                format!("{amount}{suffix}")
            }
        }
    }
}

/// What Go's `json.Marshal` writes for a `resource.Quantity` read from the JSON string
/// `text` (`UnmarshalJSON` trims spaces first).
pub fn canonical(text: &str) -> Result<String, QuantityError> {
    let q = parse(text.trim())?;
    Ok(q.kept.clone().unwrap_or_else(|| q.canonical()))
}

/// The JSON text Go's `encoding/json` writes for a float64 (`floatEncoder`): `'f'` format,
/// `'e'` below 1e-6 or from 1e21, with `e-07` cleaned to `e-7`.
pub fn go_float_text(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // Rust's `{:e}` is the shortest round-trip mantissa with an unpadded exponent;
        // Go writes a `+` for positive exponents.
        let s = format!("{f:e}");
        match s.split_once('e') {
            Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
            _ => s,
        }
    } else {
        format!("{f}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs from the issue and from apimachinery `quantity_test.go` (`TestQuantityParse`,
    /// `TestQuantityString`, `TestQuantityParseEmit`): input, what `MarshalJSON` writes.
    #[test]
    fn canonical_forms_match_go() {
        let cases = [
            ("1024Mi", "1Gi"),
            ("3072Mi", "3Gi"),
            ("1000m", "1"),
            ("0.5", "500m"),
            ("2560Mi", "2560Mi"),
            ("1.5Gi", "1536Mi"),
            ("1.5", "1500m"),
            ("0", "0"),
            ("0m", "0"),
            ("100m", "100m"),
            ("1k", "1k"),
            ("1000", "1k"),
            ("1024", "1024"),
            ("1Ki", "1Ki"),
            ("512Mi", "512Mi"),
            ("1Gi", "1Gi"),
            ("2Gi", "2Gi"),
            ("0.1m", "100u"),
            ("1n", "1n"),
            ("1.5n", "2n"),
            ("0.5Ki", "512"),
            ("100Ki", "100Ki"),
            ("1e3", "1e3"),
            ("1.5e3", "1500"),
            ("1E6", "1E6"),
            ("10e6", "10e6"),
            ("-1", "-1"),
            ("-0.5", "-500m"),
            ("+1", "+1"),
            ("1M", "1M"),
            ("1000k", "1M"),
            ("1000000", "1M"),
            ("12e8", "1200e6"),
            ("  2Gi ", "2Gi"),
        ];
        for (input, want) in cases {
            assert_eq!(canonical(input).as_deref(), Ok(want), "{input:?}");
        }
    }

    #[test]
    fn malformed_quantities_are_refused() {
        for bad in ["", "abc", "1.2.3", "1Zi", "1ee", "--1", "1 Gi"] {
            assert!(canonical(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn go_float_text_matches_encoding_json() {
        assert_eq!(go_float_text(0.5), "0.5");
        assert_eq!(go_float_text(1e-7), "1e-7");
        assert_eq!(go_float_text(1e21), "1e+21");
        assert_eq!(go_float_text(2.0), "2");
    }
}
