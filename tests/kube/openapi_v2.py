"""The test API server's /openapi/v2: its OpenAPI v3 schemas said as OpenAPI v2 (JSON), and that
document as the gnostic protobuf kubectl asks for (kubectl 1.20 reads it for `explain` and its
client-side validation; kube-openapi's pkg/util/proto parses it).

The protobuf messages are built from a descriptor made here, with the field numbers of gnostic's
openapi.v2 messages (github.com/google/gnostic, openapiv2/OpenAPIv2.proto): only the messages and
fields this server fills. google.protobuf (Debian: python3-protobuf) is imported on first use.
"""
import functools

import yaml

V3_REFS = "#/components/schemas/"
V2_REFS = "#/definitions/"
# Schema keys kept as they are (the rest of v3 -- anyOf, oneOf, nullable, default, enum -- is left
# out, as kube-openapi's proto parser does not read it); x-* vendor extensions are kept too.
KEPT = ("description", "type", "format", "required")

# message -> [(field, number, type)], "*" marks a repeated field; upstream numbers, subset of fields.
GNOSTIC = {
    "Document": [("swagger", 1, "string"), ("info", 2, "Info"), ("definitions", 9, "Definitions")],
    "Info": [("title", 1, "string"), ("version", 2, "string")],
    "Definitions": [("additional_properties", 1, "NamedSchema*")],
    "Properties": [("additional_properties", 1, "NamedSchema*")],
    "NamedSchema": [("name", 1, "string"), ("value", 2, "Schema")],
    "Schema": [("_ref", 1, "string"), ("format", 2, "string"), ("description", 4, "string"),
               ("required", 19, "string*"), ("additional_properties", 21, "AdditionalPropertiesItem"),
               ("type", 22, "TypeItem"), ("items", 23, "ItemsItem"), ("properties", 25, "Properties"),
               ("vendor_extension", 31, "NamedAny*")],
    "AdditionalPropertiesItem": [("schema", 1, "Schema"), ("boolean", 2, "bool")],  # oneof "oneof"
    "TypeItem": [("value", 1, "string*")],
    "ItemsItem": [("schema", 1, "Schema*")],
    "NamedAny": [("name", 1, "string"), ("value", 2, "Any")],
    "Any": [("yaml", 2, "string")],
}
ONEOF = {"AdditionalPropertiesItem"}


def to_v2(node):
    """A v3 schema (a published document's or a CRD's) as v2 says it: $refs into #/definitions,
    an allOf of one $ref (v3's way to give a $ref a description) as that $ref."""
    if "$ref" in node:
        return {"$ref": node["$ref"].replace(V3_REFS, V2_REFS)}
    if len(node.get("allOf", [])) == 1 and "$ref" in node["allOf"][0]:
        return dict(to_v2(node["allOf"][0]), **{k: node[k] for k in ("description",) if k in node})
    out = {k: node[k] for k in KEPT if k in node}
    out.update((k, v) for k, v in node.items() if k.startswith("x-"))
    if "properties" in node:
        out["properties"] = {name: to_v2(sub) for name, sub in node["properties"].items()}
    if "items" in node:
        out["items"] = to_v2(node["items"])
    extra = node.get("additionalProperties")
    if extra is not None:
        out["additionalProperties"] = to_v2(extra) if isinstance(extra, dict) else extra
    return out


def document(definitions, version):
    """The v2 document (JSON) of {name: v3 schema}."""
    return {"swagger": "2.0", "info": {"title": "Kubernetes", "version": version}, "paths": {},
            "definitions": {name: to_v2(schema) for name, schema in definitions.items()}}


@functools.lru_cache(maxsize=None)
def message_classes():
    """{message name: class} of the GNOSTIC subset, built from a FileDescriptorProto."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    field = descriptor_pb2.FieldDescriptorProto
    scalars = {"string": field.TYPE_STRING, "bool": field.TYPE_BOOL}
    proto = descriptor_pb2.FileDescriptorProto(name="openapiv2/OpenAPIv2.proto", package="openapi.v2",
                                               syntax="proto3")
    for name, fields in GNOSTIC.items():
        msg = proto.message_type.add(name=name)
        if name in ONEOF:
            msg.oneof_decl.add(name="oneof")
        for fname, number, ftype in fields:
            f = msg.field.add(name=fname, number=number, label=field.LABEL_REPEATED if ftype.endswith("*")
                              else field.LABEL_OPTIONAL)
            ftype = ftype.rstrip("*")
            if ftype in scalars:
                f.type = scalars[ftype]
            else:
                f.type, f.type_name = field.TYPE_MESSAGE, ".openapi.v2." + ftype
            if name in ONEOF:
                f.oneof_index = 0
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    make = getattr(message_factory, "GetMessageClass", None) or message_factory.MessageFactory(pool).GetPrototype
    return {name: make(pool.FindMessageTypeByName("openapi.v2." + name)) for name in GNOSTIC}


def fill_schema(msg, node):
    """Sets the Schema message `msg` from the v2 schema `node`."""
    msg.SetInParent()
    if "$ref" in node:
        setattr(msg, "_ref", node["$ref"])
    for key in ("format", "description"):
        if key in node:
            setattr(msg, key, node[key])
    msg.required.extend(node.get("required", []))
    if "type" in node:
        msg.type.value.append(node["type"])
    if "items" in node:
        fill_schema(msg.items.schema.add(), node["items"])
    if "properties" in node:
        msg.properties.SetInParent()
        for name, sub in node["properties"].items():
            fill_schema(msg.properties.additional_properties.add(name=name).value, sub)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        fill_schema(msg.additional_properties.schema, extra)
    elif extra is not None:
        msg.additional_properties.boolean = extra
    for key, value in node.items():
        if key.startswith("x-"):
            msg.vendor_extension.add(name=key).value.yaml = yaml.safe_dump(value, default_flow_style=False)


def encode(doc):
    """The gnostic openapi.v2.Document (serialized) of the v2 document `doc`."""
    msg = message_classes()["Document"](swagger=doc["swagger"])
    msg.info.title, msg.info.version = doc["info"]["title"], doc["info"]["version"]
    msg.definitions.SetInParent()
    for name, schema in doc["definitions"].items():
        fill_schema(msg.definitions.additional_properties.add(name=name).value, schema)
    return msg.SerializeToString()
