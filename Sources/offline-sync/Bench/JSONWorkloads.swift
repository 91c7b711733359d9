import Foundation
import OfflineSync
import OfflineSyncTesting

extension BenchRunner {
    /// J1, reading: every canonical line parsed once per call, by OfflineSync's `JSONReader`
    /// (`JSONValue(parsing:)`), `JSONSerialization.jsonObject`, and `JSONDecoder` into `[String: JSONValue]` and into
    /// a `Codable` struct. Each result is checked against the generated records outside the timed region.
    func runJSONReading(_ corpus: JSONCorpus) throws {
        let reader = try timeCodec("J1", "reader") {
            try corpus.lines.map { try JSONValue(parsing: $0) }
        } check: { values in
            values.elementsEqual(corpus.objects) { $0 == .object($1) }
        }
        try recordCodec("J1", "j1_reader", seconds: reader, bytes: corpus.byteCount)

        let serialization = try timeCodec("J1", "JSONSerialization") {
            try corpus.lineData.map { try JSONSerialization.jsonObject(with: $0) }
        } check: { values in
            values.map(CodableTodo.record(from:)) == corpus.records.map(Optional.some)
        }
        try recordCodec("J1", "j1_serialization", seconds: serialization, bytes: corpus.byteCount)

        let decoder = JSONDecoder()
        let decodedValues = try timeCodec("J1", "JSONDecoder [String: JSONValue]") {
            try corpus.lineData.map { try decoder.decode(JSONObject.self, from: $0) }
        } check: { values in
            values == corpus.objects
        }
        try recordCodec("J1", "j1_decoder_value", seconds: decodedValues, bytes: corpus.byteCount)

        let decodedStructs = try timeCodec("J1", "JSONDecoder struct") {
            try corpus.lineData.map { try decoder.decode(CodableTodo.self, from: $0) }
        } check: { todos in
            todos.map(\.record) == corpus.records
        }
        try recordCodec("J1", "j1_decoder_struct", seconds: decodedStructs, bytes: corpus.byteCount)
    }

    /// J2, writing: every record serialised once per call, by OfflineSync's `JSONWriter` (`jsonBytes()` per record,
    /// and appended to one reused buffer as a journal does), `JSONSerialization.data`, and `JSONEncoder` from
    /// `[String: JSONValue]` and from a `Codable` struct. Every output is parsed back and checked, untimed.
    func runJSONWriting(_ corpus: JSONCorpus) throws {
        let bytes = corpus.byteCount
        let writer = try timeCodec("J2", "writer") {
            corpus.objects.map { JSONValue.object($0).jsonBytes() }
        } check: { outputs in
            outputs.elementsEqual(corpus.objects) { (try? JSONValue(parsing: $0)) == .object($1) }
        }
        try recordCodec("J2", "j2_writer", seconds: writer, bytes: bytes)

        let buffered = try timeCodec("J2", "writer, one buffer") { () -> [UInt8] in
            var buffer: [UInt8] = []
            buffer.reserveCapacity(bytes + corpus.objects.count)
            let writer = JSONWriter()
            for object in corpus.objects {
                writer.write(object, into: &buffer)
                buffer.append(0x0A)
            }
            return buffer
        } check: { (buffer: [UInt8]) in
            buffer.split(separator: 0x0A).elementsEqual(corpus.objects) { (try? JSONValue(parsing: $0)) == .object($1) }
        }
        try recordCodec("J2", "j2_writer_buffer", seconds: buffered, bytes: bytes)

        let serialization = try timeCodec("J2", "JSONSerialization") {
            try corpus.dictionaries.map { try JSONSerialization.data(withJSONObject: $0) }
        } check: { outputs in
            outputs.elementsEqual(corpus.objects) { (try? JSONValue(parsing: $0)) == .object($1) }
        }
        try recordCodec("J2", "j2_serialization", seconds: serialization, bytes: bytes)

        let encoder = JSONEncoder()
        let encodedValues = try timeCodec("J2", "JSONEncoder [String: JSONValue]") {
            try corpus.objects.map { try encoder.encode($0) }
        } check: { outputs in
            outputs.elementsEqual(corpus.objects) { (try? JSONValue(parsing: $0)) == .object($1) }
        }
        try recordCodec("J2", "j2_encoder_value", seconds: encodedValues, bytes: bytes)

        let encodedStructs = try timeCodec("J2", "JSONEncoder struct") {
            try corpus.todos.map { try encoder.encode($0) }
        } check: { outputs in
            outputs.elementsEqual(corpus.objects) { (try? JSONValue(parsing: $0)) == .object($1) }
        }
        try recordCodec("J2", "j2_encoder_struct", seconds: encodedStructs, bytes: bytes)
    }

    /// Runs `body` ``BenchSizes/jsonRepeats`` times and returns the median time; the first result must pass `check`.
    private func timeCodec<Output>(
        _ workload: String, _ codec: String, _ body: () throws -> Output, check: (Output) -> Bool
    ) throws -> Double {
        var times: [Double] = []
        for repetition in 0..<sizes.jsonRepeats {
            let start = MonotonicClock.now()
            let output = try body()
            times.append(MonotonicClock.now() - start)
            if repetition == 0, !check(output) {
                throw BenchFailure.checkFailed(workload: workload, detail: "\(codec) did not reproduce the records")
            }
        }
        return BenchStatistics.median(times)
    }

    /// Records `<prefix>_records_per_s` and `<prefix>_mb_per_s` (10^6 bytes of JSON per second).
    private func recordCodec(_ workload: String, _ prefix: String, seconds: Double, bytes: Int) throws {
        try report.record(workload, prefix + "_records_per_s", Double(sizes.jsonRecords) / seconds, "records/s")
        try report.record(workload, prefix + "_mb_per_s", Double(bytes) / 1e6 / seconds, "MB/s")
    }
}
