# frozen_string_literal: true

# JSON in the protocol's dialect, which is Python's, and the canonical key of a call
# (RULES B1, B2). Ruby's own reader already keeps integers (of any size) apart from floats;
# it needs `allow_nan` for NaN and the infinities and no nesting limit (the protocol nests 200
# deep, its default stops at 100). Its writer writes 1e16 as `1.0e+16` and leaves non-ASCII
# as it is, where Python writes `1e+16` and `\u00e9`: so values are written here.

require "json"

module PythonJSON
  # A value that JSON cannot hold; the message says where it is.
  class NotJSON < StandardError; end

  SHORT_ESCAPES = { '"' => '\\"', "\\" => "\\\\", "\n" => "\\n", "\r" => "\\r", "\t" => "\\t",
                    "\b" => "\\b", "\f" => "\\f" }.freeze

  module_function

  # The key of a call: name + "(" + Python's json.dumps(args, sort_keys=True) + ")"; nil
  # args are {}.
  def key(name, args)
    "#{name}(#{dumps(args || {})})"
  end

  def parse(line)
    JSON.parse(line, allow_nan: true, max_nesting: false)
  end

  # Python's json.dumps(value, sort_keys=True): ", " and ": " between members, keys sorted by
  # code point (UTF-8 byte order is code point order), everything outside printable ASCII
  # escaped, floats as Python's repr. The protocol's messages are written so too.
  def dumps(value, path = "value")
    case value
    when nil then "null"
    when true then "true"
    when false then "false"
    when Integer then value.to_s
    when Float then repr(value)
    when String then string(value, path)
    when Array then "[#{value.each_with_index.map { |item, i| dumps(item, "#{path}[#{i}]") }.join(', ')}]"
    when Hash then object(value, path)
    else raise NotJSON, "#{path} is a #{value.class} (#{value.inspect[0, 80]}), which is not a JSON value"
    end
  end

  def object(hash, path)
    members = hash.map do |name, item|
      # A Symbol key is its name, as JSON.generate has it.
      raise NotJSON, "#{path} has a key of class #{name.class} (#{name.inspect[0, 80]}); JSON's keys are strings" \
        unless name.is_a?(String) || name.is_a?(Symbol)

      name = name.to_s
      written = string(name, path)
      [name.encode(Encoding::UTF_8).b, "#{written}: #{dumps(item, "#{path}[#{name.inspect}]")}"]
    end
    "{#{members.sort_by(&:first).map(&:last).join(', ')}}"
  end

  def string(text, path)
    utf8 = text.encode(Encoding::UTF_8)
    raise NotJSON, "#{path} is a string that is not valid UTF-8" unless utf8.valid_encoding?

    escaped = utf8.gsub(/[^ -~]|["\\]/) do |char|
      SHORT_ESCAPES[char] || char.encode(Encoding::UTF_16BE).unpack("n*").map { |unit| format("\\u%04x", unit) }.join
    end
    "\"#{escaped}\""
  rescue EncodingError
    raise NotJSON, "#{path} is a string that cannot be read as UTF-8"
  end

  # Python's repr of a float: the shortest digits that read back (Ruby's to_s finds them too),
  # in fixed notation when the decimal point falls within 16 digits of them, else as 1e+16,
  # 1e-05.
  def repr(float)
    return "NaN" if float.nan?
    return float.positive? ? "Infinity" : "-Infinity" if float.infinite?

    sign = float.to_s.start_with?("-") ? "-" : ""
    mantissa, exponent = float.abs.to_s.split("e")
    whole, fraction = mantissa.split(".")
    digits = "#{whole}#{fraction}"
    point = whole.length + exponent.to_i # digits[0, point] is the integer part
    leading = digits[/\A0*/].length
    digits = digits[leading..].sub(/0+\z/, "")
    return "#{sign}0.0" if digits.empty?

    layout(sign, digits, point - leading)
  end

  def layout(sign, digits, point)
    if point <= -4 || point > 16
      mantissa = digits.length > 1 ? "#{digits[0]}.#{digits[1..]}" : digits
      format("%s%se%+03d", sign, mantissa, point - 1)
    elsif point <= 0
      "#{sign}0.#{'0' * -point}#{digits}"
    elsif point >= digits.length
      "#{sign}#{digits}#{'0' * (point - digits.length)}.0"
    else
      "#{sign}#{digits[0, point]}.#{digits[point..]}"
    end
  end
end
