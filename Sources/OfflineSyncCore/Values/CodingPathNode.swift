/// A node of a tree coder (``JSONNodeEncoder``, ``JSONNodeDecoder``): the key it sits at below its parent, from
/// which its coding path follows.
protocol CodingPathNode: AnyObject {
    /// The key of this node below its parent; nil for the root and for a single value's own node.
    var nodeKey: (any CodingKey)? { get }
    /// The node this one sits below; nil for the root.
    var parentNode: Self? { get }
}

extension CodingPathNode {
    /// The keys from the root down to this node.
    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var node: Self? = self
        while let current = node {
            if let key = current.nodeKey { path.append(key) }
            node = current.parentNode
        }
        return path.reversed()
    }

    /// The coding path of the value at `key` below this one.
    func codingPath(appending key: any CodingKey) -> [any CodingKey] {
        codingPath + [key]
    }
}
