//! τ²'s `calculate` tool evaluates the expression with Python's `eval`, after checking that it
//! holds only digits, `+ - * / ( ) .` and spaces, then answers `str(round(float(result), 2))`.
//! Those characters still spell Python's `**` and `//`, and integers that stay exact; this
//! evaluator follows Python's grammar and arithmetic for them (an integer beyond 128 bits
//! becomes a float).

/// The answer τ²'s `calculate` gives for `expression`, or the error it raises.
pub(crate) fn calculate(expression: &str) -> Result<String, String> {
    if !expression.chars().all(|c| "0123456789+-*/(). ".contains(c)) {
        return Err("Invalid characters in expression".into());
    }
    let tokens = tokenize(expression)?;
    let mut parser = Parser { tokens, at: 0 };
    let value = parser.expression()?;
    if parser.at != parser.tokens.len() {
        return Err("invalid syntax (<string>, line 1)".into());
    }
    let float = value.as_float();
    if float.is_nan() {
        return Ok("nan".into());
    }
    if float.is_infinite() {
        return Ok(if float > 0.0 { "inf" } else { "-inf" }.into());
    }
    Ok(crate::db_hash::python_float(crate::db_hash::round2(float)))
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Token {
    Int(i128),
    Float(f64),
    Plus,
    Minus,
    Star,
    Power,
    Slash,
    FloorSlash,
    Open,
    Close,
}

#[derive(Debug, Clone, Copy)]
enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    fn as_float(self) -> f64 {
        match self {
            Self::Int(value) => value as f64,
            Self::Float(value) => value,
        }
    }
}

fn syntax_error() -> String {
    "invalid syntax (<string>, line 1)".into()
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        match byte {
            b' ' => at += 1,
            b'+' => {
                tokens.push(Token::Plus);
                at += 1;
            }
            b'-' => {
                tokens.push(Token::Minus);
                at += 1;
            }
            b'(' => {
                tokens.push(Token::Open);
                at += 1;
            }
            b')' => {
                tokens.push(Token::Close);
                at += 1;
            }
            b'*' | b'/' => {
                let double = bytes.get(at + 1) == Some(&byte);
                tokens.push(match (byte, double) {
                    (b'*', true) => Token::Power,
                    (b'*', false) => Token::Star,
                    (_, true) => Token::FloorSlash,
                    (_, false) => Token::Slash,
                });
                at += if double { 2 } else { 1 };
            }
            _ => {
                let start = at;
                while at < bytes.len() && (bytes[at].is_ascii_digit() || bytes[at] == b'.') {
                    at += 1;
                }
                let literal = &text[start..at];
                tokens.push(number(literal)?);
            }
        }
    }
    Ok(tokens)
}

/// A literal as Python reads it: `12`, `1.5`, `.5`, `5.`; an integer with a leading zero
/// (`012`) is a syntax error, a float with one (`01.5`) is not.
fn number(literal: &str) -> Result<Token, String> {
    if literal.matches('.').count() > 1 || literal == "." {
        return Err(syntax_error());
    }
    if literal.contains('.') {
        return literal
            .parse::<f64>()
            .map(Token::Float)
            .map_err(|_| syntax_error());
    }
    if literal.len() > 1 && literal.starts_with('0') && literal.bytes().any(|b| b != b'0') {
        return Err(syntax_error());
    }
    Ok(match literal.parse::<i128>() {
        Ok(value) => Token::Int(value),
        Err(_) => Token::Float(literal.parse::<f64>().map_err(|_| syntax_error())?),
    })
}

/// Python's precedence: `+ -` < `* / //` < unary `+ -` < `**` (right-associative, and
/// binding tighter than a unary sign on its left: `-2 ** 2` is -4).
struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.at).copied()
    }

    fn expression(&mut self) -> Result<Number, String> {
        let mut value = self.term()?;
        while let Some(op @ (Token::Plus | Token::Minus)) = self.peek() {
            self.at += 1;
            let right = self.term()?;
            value = arithmetic(op, value, right)?;
        }
        Ok(value)
    }

    fn term(&mut self) -> Result<Number, String> {
        let mut value = self.factor()?;
        while let Some(op @ (Token::Star | Token::Slash | Token::FloorSlash)) = self.peek() {
            self.at += 1;
            let right = self.factor()?;
            value = arithmetic(op, value, right)?;
        }
        Ok(value)
    }

    fn factor(&mut self) -> Result<Number, String> {
        match self.peek() {
            Some(Token::Plus) => {
                self.at += 1;
                self.factor()
            }
            Some(Token::Minus) => {
                self.at += 1;
                let value = self.factor()?;
                arithmetic(Token::Minus, Number::Int(0), value)
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Number, String> {
        let base = self.atom()?;
        if self.peek() == Some(Token::Power) {
            self.at += 1;
            let exponent = self.factor()?;
            return arithmetic(Token::Power, base, exponent);
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Number, String> {
        let token = self.peek().ok_or_else(syntax_error)?;
        self.at += 1;
        match token {
            Token::Int(value) => Ok(Number::Int(value)),
            Token::Float(value) => Ok(Number::Float(value)),
            Token::Open => {
                if self.peek() == Some(Token::Close) {
                    return Err(
                        "float() argument must be a string or a real number, not 'tuple'".into(),
                    );
                }
                let value = self.expression()?;
                if self.peek() != Some(Token::Close) {
                    return Err(syntax_error());
                }
                self.at += 1;
                Ok(value)
            }
            _ => Err(syntax_error()),
        }
    }
}

fn arithmetic(op: Token, left: Number, right: Number) -> Result<Number, String> {
    if let (Number::Int(a), Number::Int(b)) = (left, right) {
        let exact = match op {
            Token::Plus => Some(a.checked_add(b)),
            Token::Minus => Some(a.checked_sub(b)),
            Token::Star => Some(a.checked_mul(b)),
            Token::FloorSlash if b == 0 => {
                return Err("integer division or modulo by zero".into());
            }
            Token::FloorSlash => Some(a.checked_div_euclid(b).map(|q| {
                // Floor, not Euclid's quotient, for a negative divisor.
                if b < 0 && a.rem_euclid(b) != 0 {
                    q - 1
                } else {
                    q
                }
            })),
            Token::Power if b >= 0 => Some(
                u32::try_from(b)
                    .ok()
                    .and_then(|exponent| a.checked_pow(exponent)),
            ),
            Token::Slash if b == 0 => return Err("division by zero".into()),
            _ => None,
        };
        if let Some(Some(value)) = exact {
            return Ok(Number::Int(value));
        }
        if op == Token::Power && a == 0 && b < 0 {
            return Err("0.0 cannot be raised to a negative power".into());
        }
    }
    let (a, b) = (left.as_float(), right.as_float());
    let value = match op {
        Token::Plus => a + b,
        Token::Minus => a - b,
        Token::Star => a * b,
        Token::Slash if b == 0.0 => return Err("float division by zero".into()),
        Token::Slash => a / b,
        Token::FloorSlash if b == 0.0 => return Err("float floor division by zero".into()),
        Token::FloorSlash => (a / b).floor(),
        Token::Power if a == 0.0 && b < 0.0 => {
            return Err("0.0 cannot be raised to a negative power".into())
        }
        Token::Power if a < 0.0 && b.fract() != 0.0 => {
            return Err("float() argument must be a string or a real number, not 'complex'".into())
        }
        Token::Power => a.powf(b),
        _ => return Err(syntax_error()),
    };
    Ok(Number::Float(value))
}

#[cfg(test)]
mod tests {
    use super::calculate;

    #[test]
    fn answers_as_python_does() {
        for (expression, answer) in [
            ("2 * ((350 - 122) + (499 - 127))", "1200.0"),
            ("2 + 2", "4.0"),
            ("10 / 3", "3.33"),
            ("-2 ** 2", "-4.0"),
            ("2 ** 3 ** 2", "512.0"),
            ("7 // 2", "3.0"),
            ("-7 // 2", "-4.0"),
            ("7 // -2", "-4.0"),
            ("0.125 * 1", "0.12"),
            (".5 + 5.", "5.5"),
            ("2 ** -1", "0.5"),
        ] {
            assert_eq!(calculate(expression).as_deref(), Ok(answer), "{expression}");
        }
        for expression in ["1 / 0", "012", "2 +", "(1", "2 x 3", "()"] {
            assert!(calculate(expression).is_err(), "{expression}");
        }
    }
}
