# frozen_string_literal: true

# The protocol adapter (conformance/PROTOCOL.md, version 2): it reads parcall's messages,
# calls the two methods of solution.rb once per batch, and gives them stubs for dispatch and
# the tools, each of which asks parcall (`invoke`) and waits for its `answer`. parcall holds
# the tools: this process never holds the record of its invocations nor an answer it has not
# asked for.
#
#     parcall check --cmd "ruby main.rb"

require "stringio"
require_relative "python_json"

# What a tool raises when parcall's answer raises: its message is Python's str() of the
# exception, python_class the class it names and python_args the arguments it was raised with.
class ToolError < StandardError
  attr_reader :python_class, :python_args

  def initialize(message, python_class = "RuntimeError", python_args = [message])
    super(message)
    @python_class = python_class
    @python_args = python_args
  end
end

# Both directions of the protocol, for every thread. Whoever waits reads (the request loop
# for its next case, a stub for its answer), one at a time, and keeps what it read for whoever
# it is for: no thread sits on the pipe on its own, so an implementation that runs one call at
# a time asks one at a time.
class Channel
  def initialize(input, output)
    @input, @output = input, output
    @sending, @state, @turn = Mutex.new, Mutex.new, ConditionVariable.new
    @reading = @closed = false
    @answers, @requests = {}, []
    @calls = 0
  end

  def send_message(message)
    line = "#{PythonJSON.dumps(message)}\n"
    @sending.synchronize { @output.write(line) }
  rescue IOError, SystemCallError
    exit!(0) # parcall closed the channel: the run is over.
  end

  # The next message that is not an answer; nil once parcall closed the channel.
  def request
    wait { @requests.shift }
  end

  # Sends an invocation to parcall and waits for its answer.
  def ask(case_id, tool, args)
    call = @state.synchronize { @calls += 1 }
    invoke = { "type" => "invoke", "id" => case_id, "call" => call, "tool" => tool, "args" => args }
    begin
      send_message(invoke)
    rescue PythonJSON::NotJSON => e
      send_message(invoke.merge("args" => { "$parcall_not_json" => e.message }))
    end
    wait { @answers.delete(call) } || exit!(0) # parcall closed the channel: the run is over.
  end

  private

  def wait
    @state.synchronize do
      loop do
        found = yield
        return found if found
        return nil if @closed
        next @turn.wait(@state) if @reading

        read_one
      end
    end
  end

  # Reads one line without the lock, so the others can take what is already there meanwhile.
  def read_one
    @reading = true
    line = nil
    @state.unlock
    begin
      line = @input.gets
    ensure
      @state.lock
      @reading = false
    end
    keep(line)
    @turn.broadcast
  end

  def keep(line)
    return @closed = true if line.nil?

    message = PythonJSON.parse(line.force_encoding(Encoding::UTF_8))
    if message["type"] == "answer"
      @answers[message["call"]] = message["answer"]
    else
      @requests << message
    end
  end
end

# What the implementation prints while a case runs, kept up to a cap for the case's `result`.
class Capture < StringIO
  CAP = 64 * 1024

  def write(*parts)
    text = parts.join
    room = CAP - string.bytesize
    super(text.byteslice(0, [room, 0].max)) if room.positive?
    @cut ||= text.bytesize > room
    text.bytesize
  end

  def take
    taken = string.dup.force_encoding(Encoding::UTF_8).scrub
    taken << "\n[cut: more was printed]" if @cut
    truncate(0)
    rewind
    @cut = false
    taken
  end
end

# Runs the cases parcall sends against solution.rb.
class Adapter
  FUNCTIONS = { "execute_tool_calls" => 3, "run_parallel_calls" => 2 }.freeze
  SOLUTION = File.expand_path("solution.rb", __dir__)

  def initialize(channel)
    @channel = channel
    @capture = Capture.new
  end

  def serve
    return unless @channel.request

    @channel.send_message(hello)
    while (request = @channel.request)
      case request["type"]
      when "case" then run_case(request)
      when "shutdown" then return @channel.send_message({ "type" => "bye" })
      end
    end
  end

  private

  def hello
    reply = { "type" => "hello", "protocol" => 2, "number_model" => "python", "functions" => [], "problems" => [],
              "implementation" => { "name" => "solution.rb", "language" => "ruby", "version" => RUBY_VERSION } }
    capturing { require SOLUTION }
    FUNCTIONS.each do |name, arity|
      next unless Object.private_method_defined?(name) || Object.method_defined?(name)

      reply["functions"] << name
      takes = Object.instance_method(name).arity
      reply["problems"] << "#{name} takes #{takes} arguments; parcall calls it with #{arity}" unless accepts?(takes, arity)
    end
    reply.merge("output" => @capture.take)
  rescue ScriptError, StandardError => e
    reply.merge("load_error" => "#{e.class}: #{e.message}\n#{trace(e)}", "output" => @capture.take)
  end

  def accepts?(takes, arity)
    takes == arity || (takes.negative? && -takes - 1 <= arity)
  end

  # Calls the function once per batch, sending each batch's end as it comes, then the case's.
  # The case's `case` label is opaque (PROTOCOL.md): nothing uses it.
  def run_case(request)
    id = request["id"]
    request["batches"].each do |batch|
      reply = run_batch(request, batch)
      @channel.send_message(reply.merge("id" => id))
      break if reply["type"] == "raised"
    end
    @channel.send_message({ "type" => "result", "id" => id, "output" => @capture.take })
  end

  def run_batch(request, batch)
    output = capturing { call(request, batch) }
    PythonJSON.dumps(output)
    { "type" => "returned", "output" => output }
  rescue PythonJSON::NotJSON => e
    { "type" => "raised", "message" => "returned a value that is not JSON: #{e.message}", "traceback" => "" }
  rescue NoMemoryError => e
    { "type" => "raised", "message" => "MemoryError: #{e.message}", "traceback" => "" }
  rescue ScriptError, StandardError, SystemStackError => e
    { "type" => "raised", "message" => "#{e.class}: #{e.message}", "traceback" => trace(e) }
  end

  def call(request, batch)
    id = request["id"]
    if request["function"] == "execute_tool_calls"
      dispatch = ->(req) { @channel.ask(id, req["tool"], req["arguments"])["value"] }
      return execute_tool_calls(batch["calls"], batch.fetch("max_parallel", 4), dispatch)
    end
    tools = request["tools"].to_h { |name| [name, ->(args) { invoke(id, name, args) }] }
    run_parallel_calls(tools, batch["calls"])
  end

  def invoke(id, name, args)
    answer = @channel.ask(id, name, args)
    return answer["value"] unless answer["type"] == "raise"

    message = answer["message"]
    raise ToolError.new(message, answer.fetch("exception", "RuntimeError"), answer.fetch("args", [message]))
  end

  def capturing
    $stdout = $stderr = @capture
    yield
  ensure
    $stdout, $stderr = STDOUT, STDERR
  end

  # The backtrace's lines in solution.rb: the adapter's own say nothing to its author.
  def trace(error)
    (error.backtrace || []).select { |line| line.start_with?(SOLUTION) }.map { |line| line.delete_prefix("#{__dir__}/") }.join("\n")
  end
end

def protocol_files
  read, write = ENV.fetch("PARCALL_PROTOCOL_FDS", "").split(",").map { |fd| Integer(fd, exception: false) }
  abort "PARCALL_PROTOCOL_FDS is not READ,WRITE: run me with `parcall check --cmd \"ruby main.rb\"`" unless read && write
  ENV.delete("PARCALL_PROTOCOL_FDS")
  output = IO.new(write, "wb")
  output.sync = true
  [IO.new(read, "rb"), output]
end

Adapter.new(Channel.new(*protocol_files)).serve if $PROGRAM_NAME == __FILE__
